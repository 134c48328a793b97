// WIRE-04 (SHOULD): replaying the same request does not execute a tool again.
//
// The same continuation request (an approved call) is handled twice, as a
// client retry or a replayed HTTP request would make it. generateText keeps
// no record of the approvals it has acted on (even with
// experimental_toolApprovalSecret, which binds an approval to its call, not
// to one use), so the tool runs twice. The same holds when the first
// attempt failed after the tool ran (a model error): the retry runs it again.
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, jsonSchema, tool } from "ai";

const fetch = async () => Response.json({
  id: "c", object: "chat.completion", created: 0, model: "m",
  choices: [{ index: 0, message: { role: "assistant", content: "Shipped." }, finish_reason: "stop" }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
});
let runs = 0;
const request = {
  model: createOpenAI({ apiKey: "k", fetch }).chat("m"),
  maxRetries: 0,
  tools: {
    ship: tool({
      inputSchema: jsonSchema({ type: "object" }),
      needsApproval: true,
      execute: async () => { runs++; return { shipped: true }; },
    }),
  },
  messages: [
    { role: "user", content: "ship it" },
    { role: "assistant", content: [
      { type: "tool-call", toolCallId: "call_1", toolName: "ship", input: {} },
      { type: "tool-approval-request", approvalId: "approval_1", toolCallId: "call_1" },
    ] },
    { role: "tool", content: [{ type: "tool-approval-response", approvalId: "approval_1", approved: true }] },
  ],
};
await generateText(request);
await generateText(request); // the same request again
console.log(`ship ran ${runs} time(s) for one approval`);
process.exit(runs > 1 ? 1 : 0);
