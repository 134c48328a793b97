// WIRE-02: generateText runs an approved call before calling the model and
// appends its result as a new tool message at the end of the prompt
// (Prompt.fromMessages([...prompt, ...results])). When anything follows the
// assistant message that holds the call (an assistant note, or text the
// user wrote after answering), the result reaches the model after it, not
// next to its call: OpenAI refuses that prompt ("An assistant message with
// 'tool_calls' must be followed by tool messages").
import { Prompt } from "./sdk.mjs";
import { call, countingToolkit, finish, generate, history, scriptedModel, show } from "./lib.mjs";

const { model, prompts } = scriptedModel([
  [call("c1", "deleteFile", { path: "/a" }), finish("tool-calls")],
  [{ type: "text", text: "Deleted /a." }, finish("stop")],
]);
const tk = countingToolkit("deleteFile");
const p1 = [{ role: "user", content: [{ type: "text", text: "delete /a" }] }];
const r1 = await generate(model, tk, p1);
const approvalId = r1.content.find((p) => p.type === "tool-approval-request").approvalId;
const p2 = Prompt.fromMessages([
  ...history(p1, r1),
  ...Prompt.make([
    { role: "tool", content: [{ type: "tool-approval-response", approvalId, approved: true }] },
    { role: "user", content: [{ type: "text", text: "and tell me when it is done" }] },
  ]).content,
]);
await generate(model, tk, p2);
const msgs = prompts[1];
console.log("model call 2 prompt:", msgs.map((m) => `${m.role}[${typeof m.content === "string" ? "text" : m.content.map((p) => p.type + (p.id ? " " + p.id : "")).join(", ")}]`).join(" "));
console.log("deleteFile runs:", show(tk.runs));
const at = msgs.findIndex((m) => m.role === "assistant" && m.content.some((p) => p.type === "tool-call" && p.id === "c1"));
const next = msgs[at + 1];
if (!(next?.role === "tool" && next.content.some((p) => p.type === "tool-result" && p.id === "c1"))) {
  console.log("DEFECT: the result of c1 does not follow the assistant message of its call");
  process.exit(1);
}
console.log("OK");
