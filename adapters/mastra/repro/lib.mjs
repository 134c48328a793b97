// Helpers of the reproductions: a scripted LanguageModelV2 (it answers each
// call with the next reply of its script, in generate and stream mode),
// tools that record their runs, and a Mastra with an in-memory store.
// Nothing of the kit.
import { Agent, InMemoryStore, Mastra, createTool } from "./sdk.mjs";

export const call = (toolCallId, toolName, input) => ({ type: "tool-call", toolCallId, toolName, input: JSON.stringify(input) });
export const text = (t) => ({ type: "text", text: t });

export function scriptedModel(replies) {
  let n = 0;
  const next = () => replies[n++] ?? [text("(past the script)")];
  const finishReason = (content) => (content.some((p) => p.type === "tool-call") ? "tool-calls" : "stop");
  const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };
  return {
    specificationVersion: "v2", provider: "repro", modelId: "repro", supportedUrls: {},
    calls: () => n,
    async doGenerate() {
      const content = next();
      return { content, finishReason: finishReason(content), usage, warnings: [] };
    },
    async doStream() {
      const content = next();
      const stream = new ReadableStream({
        start(c) {
          c.enqueue({ type: "stream-start", warnings: [] });
          for (const p of content) {
            if (p.type === "text") {
              c.enqueue({ type: "text-start", id: "t" });
              c.enqueue({ type: "text-delta", id: "t", delta: p.text });
              c.enqueue({ type: "text-end", id: "t" });
            } else c.enqueue(p);
          }
          c.enqueue({ type: "finish", finishReason: finishReason(content), usage });
          c.close();
        },
      });
      return { stream };
    },
  };
}

export function recordingTool(id, requireApproval, runs) {
  return createTool({ id, description: id, inputSchema: { type: "object" }, requireApproval, execute: async (input, ctx) => {
    runs.push(ctx?.agent?.toolCallId ?? id);
    return { ok: true };
  } });
}

export function agentWith(model, tools) {
  const mastra = new Mastra({ storage: new InMemoryStore(), logger: false });
  mastra.addAgent(new Agent({ id: "repro", name: "repro", instructions: "", model, tools }), "repro");
  return mastra.getAgent("repro");
}

export const show = (x) => JSON.stringify(x);
