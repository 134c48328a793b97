// REQ-03: a pending approval ends the turn with finish reason tool-calls.
//
// The model answers with a call to a tool that needs approval and gives
// the finish reason "stop" beside it (models do). The SDK asks approval and
// ends the turn, but the turn's finish reason is the model's "stop": an
// application that reads it learns nothing of the approval it must ask.
// Both generateText and streamText.
import { generateText, jsonSchema, streamText, tool } from "ai";
import * as test from "ai/test";

const Mock = test.MockLanguageModelV4 ?? test.MockLanguageModelV3;
const call = { type: "tool-call", toolCallId: "call_1", toolName: "deleteFile", input: JSON.stringify({ path: "/a" }) };
const finishReason = { unified: "stop", raw: "stop" };
const usage = { inputTokens: { total: 1 }, outputTokens: { total: 1 } };
const model = new Mock({
  doGenerate: async () => ({ content: [call], finishReason, usage, warnings: [] }),
  doStream: async () => ({
    stream: new ReadableStream({
      start(c) {
        c.enqueue({ type: "stream-start", warnings: [] });
        c.enqueue(call);
        c.enqueue({ type: "finish", finishReason, usage });
        c.close();
      },
    }),
  }),
});
let runs = 0;
const tools = {
  deleteFile: tool({
    inputSchema: jsonSchema({ type: "object", properties: { path: { type: "string" } } }),
    needsApproval: true,
    execute: async () => { runs++; return { deleted: "/a" }; },
  }),
};
const messages = [{ role: "user", content: "delete /a" }];
const g = await generateText({ model, tools, messages, maxRetries: 0 });
const s = streamText({ model, tools, messages, maxRetries: 0 });
await s.consumeStream();
const requests = g.content.filter((p) => p.type === "tool-approval-request").length;
const sFinish = await s.finishReason;
console.log(`generateText: ${requests} approval request(s), finishReason ${g.finishReason}; streamText: finishReason ${sFinish}; tool runs: ${runs}`);
process.exit(requests === 1 && (g.finishReason !== "tool-calls" || sFinish !== "tool-calls") ? 1 : 0);
