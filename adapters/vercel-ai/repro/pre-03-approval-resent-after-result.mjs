// PRE-03: a call that already has a result is not executed again.
//
// The history holds call_1, its approval, and its result; the user's client
// then sends the same approval again, in a new tool message. generateText
// runs the tool a second time and sends the model two results for call_1.
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, jsonSchema, tool } from "ai";

const prompts = [];
const fetch = async (_url, init) => {
  prompts.push(JSON.parse(init.body).messages);
  return Response.json({
    id: "c", object: "chat.completion", created: 0, model: "m",
    choices: [{ index: 0, message: { role: "assistant", content: "It is already done." }, finish_reason: "stop" }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  });
};

let runs = 0;
const deleteFile = tool({
  inputSchema: jsonSchema({ type: "object", properties: { path: { type: "string" } } }),
  needsApproval: true,
  execute: async () => { runs++; return { deleted: "/a" }; },
});

const approval = { type: "tool-approval-response", approvalId: "approval_1", approved: true };
await generateText({
  model: createOpenAI({ apiKey: "k", fetch }).chat("m"),
  tools: { deleteFile },
  maxRetries: 0,
  messages: [
    { role: "user", content: "delete /a" },
    { role: "assistant", content: [
      { type: "tool-call", toolCallId: "call_1", toolName: "deleteFile", input: { path: "/a" } },
      { type: "tool-approval-request", approvalId: "approval_1", toolCallId: "call_1" },
    ] },
    { role: "tool", content: [approval] },
    { role: "tool", content: [{ type: "tool-result", toolCallId: "call_1", toolName: "deleteFile", output: { type: "json", value: { deleted: "/a" } } }] },
    { role: "assistant", content: "Deleted /a." },
    { role: "tool", content: [approval] }, // the same approval, sent again
  ],
});

const results = prompts[0].filter((m) => m.role === "tool" && m.tool_call_id === "call_1").length;
console.log(`deleteFile ran ${runs} time(s); the prompt holds ${results} result(s) for call_1`);
process.exit(runs > 0 || results > 1 ? 1 : 0);
