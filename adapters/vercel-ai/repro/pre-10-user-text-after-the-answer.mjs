// PRE-10: approval requests and their answers are found anywhere in the
// history.
//
// The user approves call_1 and writes a note after the answer, before the
// application calls the SDK (the note is the last message). generateText
// only looks for answers when the last message is a tool message: the
// approval is ignored, call_1 never runs, and the turn fails with
// MissingToolResultsError.
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, jsonSchema, tool } from "ai";
import { chatCompletions } from "./lib-chat-completions.mjs";

const { fetch } = chatCompletions([{ text: "Booked." }]);
let runs = 0;
let error;
try {
  await generateText({
    model: createOpenAI({ apiKey: "k", fetch }).chat("m"),
    maxRetries: 0,
    tools: {
      bookFlight: tool({
        inputSchema: jsonSchema({ type: "object" }),
        needsApproval: true,
        execute: async () => { runs++; return { booked: true }; },
      }),
    },
    messages: [
      { role: "user", content: "book my flight to Oslo" },
      { role: "assistant", content: [
        { type: "tool-call", toolCallId: "call_1", toolName: "bookFlight", input: { to: "Oslo" } },
        { type: "tool-approval-request", approvalId: "approval_1", toolCallId: "call_1" },
      ] },
      { role: "tool", content: [{ type: "tool-approval-response", approvalId: "approval_1", approved: true }] },
      { role: "user", content: "and a window seat, please" },
    ],
  });
} catch (e) {
  error = e;
}
console.log(`bookFlight ran ${runs} time(s); error: ${error ? `${error.name}: ${error.message}` : "none"}`);
process.exit(runs === 1 && !error ? 0 : 1);
