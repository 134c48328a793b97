// PRE-06: an approved call to a tool the toolkit no longer has fails with a
// clear tool-not-found error, or gets a denial result; PRE-13: a turn that
// fails does so before any tool runs.
//
// ai 7 counts an approval for a tool that is not in the tool set as
// approved (6.x denies it, "Tool ... does not require approval"). The call
// then has nothing to run, the other approved call of the batch runs, and
// the turn fails with MissingToolResultsError ("Tool result is missing for
// tool call call_2"), which does not name the cause, after a side effect
// whose result is lost.
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, jsonSchema, tool } from "ai";
import { chatCompletions } from "./lib-chat-completions.mjs";

const { fetch } = chatCompletions([{ text: "Done." }]);
const ran = [];
let error, result;
try {
  result = await generateText({
    model: createOpenAI({ apiKey: "k", fetch }).chat("m"),
    maxRetries: 0,
    tools: {
      readFile: tool({
        inputSchema: jsonSchema({ type: "object" }),
        needsApproval: true,
        execute: async () => { ran.push("readFile"); return { text: "…" }; },
      }),
      // formatDisk was offered when the calls were made; it is gone now.
    },
    messages: [
      { role: "user", content: "read /a, then format the disk" },
      { role: "assistant", content: [
        { type: "tool-call", toolCallId: "call_1", toolName: "readFile", input: {} },
        { type: "tool-call", toolCallId: "call_2", toolName: "formatDisk", input: {} },
        { type: "tool-approval-request", approvalId: "approval_1", toolCallId: "call_1" },
        { type: "tool-approval-request", approvalId: "approval_2", toolCallId: "call_2" },
      ] },
      { role: "tool", content: [
        { type: "tool-approval-response", approvalId: "approval_1", approved: true },
        { type: "tool-approval-response", approvalId: "approval_2", approved: true },
      ] },
    ],
  });
} catch (e) {
  error = e;
}
const denied = (result?.responseMessages ?? result?.response.messages ?? [])
  .flatMap((m) => (m.role === "tool" ? m.content : []))
  .some((p) => p.type === "tool-result" && p.toolCallId === "call_2" && p.output.type === "execution-denied");
console.log(`ran: [${ran.join(", ")}]; call_2 denied: ${denied}; error: ${error ? `${error.name}: ${error.message}` : "none"}`);
process.exit(denied || error?.name === "AI_NoSuchToolError" ? 0 : 1);
