// Helpers of the reproductions: a scripted model of the SDK's Model
// interface (it answers each call with the next output of its script and
// records the input it was given) and a tool that records its runs.
// Nothing of the kit.
import { Agent, Usage, setTracingDisabled, tool } from "./sdk.mjs";

setTracingDisabled(true);

export function scriptedModel(outputs) {
  const inputs = [];
  return {
    inputs,
    async getResponse(request) {
      inputs.push(request.input);
      return { usage: new Usage(), output: outputs[inputs.length - 1] ?? [text("(past the script)")] };
    },
    async *getStreamedResponse() {
      throw new Error("not used");
    },
  };
}

export const call = (callId, name, args) => ({ type: "function_call", callId, name, arguments: JSON.stringify(args), status: "completed" });
export const text = (t) => ({ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: t }] });

/** recordingTool: a tool that records each run's call id and input. */
export function recordingTool(name, { needsApproval = true, fails } = {}) {
  const runs = [];
  const t = tool({
    name,
    description: name,
    parameters: { type: "object", properties: {}, additionalProperties: true },
    strict: false,
    needsApproval,
    execute: async (input, _ctx, details) => {
      runs.push({ callId: details?.toolCall?.callId, input });
      if (fails) throw new Error(fails);
      return { done: true };
    },
  });
  return { tool: t, runs };
}

export const agentWith = (model, ...tools) => new Agent({ name: "repro", model, tools });
export const show = (x) => JSON.stringify(x);
