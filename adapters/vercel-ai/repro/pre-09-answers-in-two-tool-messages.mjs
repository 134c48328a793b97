// PRE-09: several responses in one request are all resolved, in one
// message or in several.
//
// Two calls wait for approval; the request answers them in two tool
// messages (an application that appends each answer as the user gives it).
// generateText reads approvals from the last message only: the first
// answer is ignored, its approved call never runs, and the turn fails with
// MissingToolResultsError.
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, jsonSchema, tool } from "ai";
import { chatCompletions } from "./lib-chat-completions.mjs";

const { fetch } = chatCompletions([{ text: "Deleted /a and /b." }]);
const ran = [];
const deleteFile = tool({
  inputSchema: jsonSchema({ type: "object", properties: { path: { type: "string" } } }),
  needsApproval: true,
  execute: async ({ path }) => { ran.push(path); return { deleted: path }; },
});
let error;
try {
  await generateText({
    model: createOpenAI({ apiKey: "k", fetch }).chat("m"),
    tools: { deleteFile },
    maxRetries: 0,
    messages: [
      { role: "user", content: "delete /a and /b" },
      { role: "assistant", content: [
        { type: "tool-call", toolCallId: "call_1", toolName: "deleteFile", input: { path: "/a" } },
        { type: "tool-call", toolCallId: "call_2", toolName: "deleteFile", input: { path: "/b" } },
        { type: "tool-approval-request", approvalId: "approval_1", toolCallId: "call_1" },
        { type: "tool-approval-request", approvalId: "approval_2", toolCallId: "call_2" },
      ] },
      { role: "tool", content: [{ type: "tool-approval-response", approvalId: "approval_1", approved: true }] },
      { role: "tool", content: [{ type: "tool-approval-response", approvalId: "approval_2", approved: true }] },
    ],
  });
} catch (e) {
  error = e;
}
console.log(`ran: [${ran.join(", ")}]; error: ${error ? `${error.name}: ${error.message}` : "none"}`);
process.exit(ran.length === 2 && !error ? 0 : 1);
