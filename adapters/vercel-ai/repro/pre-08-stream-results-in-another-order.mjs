// PRE-08: stream mode resolves approvals as generate mode does; the
// stream's result events are the turn's results, in the same order.
//
// A batch answers call_1 (approved) and call_2 (denied). streamText streams
// the denial before it runs the approved call, but its response messages
// (and generateText's) hold the approved result first: the stream and the
// messages disagree on the order of the results.
import { createOpenAI } from "@ai-sdk/openai";
import { streamText, jsonSchema, tool } from "ai";
import { chatCompletions } from "./lib-chat-completions.mjs";

const { fetch } = chatCompletions([{ text: "Deleted /a, kept /b." }]);
const result = streamText({
  model: createOpenAI({ apiKey: "k", fetch }).chat("m"),
  maxRetries: 0,
  tools: {
    deleteFile: tool({
      inputSchema: jsonSchema({ type: "object" }),
      needsApproval: true,
      execute: async ({ path }) => ({ deleted: path }),
    }),
  },
  messages: [
    { role: "user", content: "delete /a and /b" },
    { role: "assistant", content: [
      { type: "tool-call", toolCallId: "call_1", toolName: "deleteFile", input: { path: "/a" } },
      { type: "tool-call", toolCallId: "call_2", toolName: "deleteFile", input: { path: "/b" } },
      { type: "tool-approval-request", approvalId: "approval_1", toolCallId: "call_1" },
      { type: "tool-approval-request", approvalId: "approval_2", toolCallId: "call_2" },
    ] },
    { role: "tool", content: [
      { type: "tool-approval-response", approvalId: "approval_1", approved: true },
      { type: "tool-approval-response", approvalId: "approval_2", approved: false, reason: "keep b" },
    ] },
  ],
});
const events = [];
for await (const part of result.fullStream) {
  if (["tool-result", "tool-error", "tool-output-denied"].includes(part.type)) events.push(part.toolCallId);
}
const messages = (result.responseMessages ? await result.responseMessages : (await result.response).messages)
  .flatMap((m) => (m.role === "tool" ? m.content : []))
  .filter((p) => p.type === "tool-result")
  .map((p) => p.toolCallId);
console.log(`result events: [${events.join(", ")}]; results in the messages: [${messages.join(", ")}]`);
process.exit(events.join() === messages.join() ? 0 : 1);
