// WIRE-01 (through an application's own model): no prompt has a result
// without a call.
//
// A provider-executed (hosted MCP) call was denied. generateText hands its
// model, besides the provider approval response, an execution-denied
// tool-result for that call, marked providerOptions.openai.approvalId:
// @ai-sdk/openai knows to skip it; any other model (a third-party provider,
// an application's own) receives a function result for a call that is no
// function call. streamText adds no such result.
import { generateText } from "ai";
import * as test from "ai/test";

const Mock = test.MockLanguageModelV4 ?? test.MockLanguageModelV3;
const v4 = Boolean(test.MockLanguageModelV4);
const prompts = [];
const model = new Mock({
  doGenerate: async (options) => {
    prompts.push(options.prompt);
    return {
      content: [{ type: "text", text: "I will not search." }],
      finishReason: { unified: "stop", raw: "stop" },
      usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } },
      warnings: [],
    };
  },
});
await generateText({
  model,
  maxRetries: 0,
  messages: [
    { role: "user", content: "search the weather" },
    { role: "assistant", content: [
      { type: "tool-call", toolCallId: "mcp_call_1", toolName: "mcp.web_search", input: { q: "weather" }, providerExecuted: true },
      { type: "tool-approval-request", approvalId: "mcpr_1", toolCallId: "mcp_call_1" },
    ] },
    { role: "tool", content: [{ type: "tool-approval-response", approvalId: "mcpr_1", approved: false, providerExecuted: true }] },
  ],
});
const results = prompts[0].flatMap((m) => (m.role === "tool" ? m.content : [])).filter((p) => p.type === "tool-result" && p.toolCallId === "mcp_call_1");
console.log(`${v4 ? "V4" : "V3"} model; results for the provider-executed call in the prompt: ${JSON.stringify(results)}`);
process.exit(results.length > 0 ? 1 : 0);
