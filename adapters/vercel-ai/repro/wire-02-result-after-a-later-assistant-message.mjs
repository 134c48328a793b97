// WIRE-02: results follow their calls as the provider requires.
//
// An assistant note comes between the call that waits for approval and the
// user's approval (an application that shows "I will wait for your answer").
// generateText finds the request (PRE-10 holds) and runs the approved call,
// but appends its result after the note: OpenAI Chat Completions requires the
// tool messages right after the assistant message with the tool_calls, and
// answers 400.
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, jsonSchema, tool } from "ai";

const prompts = [];
const fetch = async (_url, init) => {
  prompts.push(JSON.parse(init.body).messages);
  return Response.json({
    id: "c", object: "chat.completion", created: 0, model: "m",
    choices: [{ index: 0, message: { role: "assistant", content: "Deleted /a." }, finish_reason: "stop" }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  });
};
let runs = 0;
await generateText({
  model: createOpenAI({ apiKey: "k", fetch }).chat("m"),
  maxRetries: 0,
  tools: {
    deleteFile: tool({
      inputSchema: jsonSchema({ type: "object", properties: { path: { type: "string" } } }),
      needsApproval: true,
      execute: async () => { runs++; return { deleted: "/a" }; },
    }),
  },
  messages: [
    { role: "user", content: "delete /a" },
    { role: "assistant", content: [
      { type: "tool-call", toolCallId: "call_1", toolName: "deleteFile", input: { path: "/a" } },
      { type: "tool-approval-request", approvalId: "approval_1", toolCallId: "call_1" },
    ] },
    { role: "assistant", content: "I will wait for your answer." },
    { role: "tool", content: [{ type: "tool-approval-response", approvalId: "approval_1", approved: true }] },
  ],
});
const roles = prompts[0].map((m) => (m.tool_calls ? "assistant(tool_calls)" : m.role));
console.log(`deleteFile ran ${runs} time(s); the prompt is ${roles.join(", ")}`);
const i = roles.indexOf("assistant(tool_calls)");
process.exit(roles[i + 1] === "tool" ? 0 : 1);
