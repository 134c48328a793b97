// The SDK packages of one installed version. install.sh copies this file
// into versions/<version>/, so that the imports below resolve from that
// version's node_modules; the adapter imports it from there.
export {
  Agent, RunState, RunResult, Usage, run, tool, hostedMcpTool, setTracingDisabled,
  OpenAIChatCompletionsModel, OpenAIResponsesModel,
  ToolCallError, ToolTimeoutError, InvalidToolOutputError, ModelBehaviorError, ModelRefusalError, ModelTimeoutError,
  MaxTurnsExceededError,
} from "@openai/agents";
export { default as OpenAI } from "openai";
