// WIRE-02 (4.1) / PRE-03 (4.0 betas): where the result of an approved call
// goes. generateText runs an approved call before calling the model; 4.1
// returns that result among the response's parts, and Prompt.fromResponseParts
// (how Effect's own Chat adds a response to its history) puts it in the tool
// message after the reply's assistant message. The next model call then gets
// the call, the assistant's later text, and only then the call's result,
// which OpenAI refuses ("An assistant message with 'tool_calls' must be
// followed by tool messages"). The betas do not return the result at all:
// the history then holds an approval with no result, and the next turn runs
// the call again.
import { Prompt } from "./sdk.mjs";
import { call, countingToolkit, finish, generate, history, scriptedModel, show } from "./lib.mjs";

const { model, prompts } = scriptedModel([
  [call("c1", "deleteFile", { path: "/a" }), finish("tool-calls")],
  [{ type: "text", text: "Deleted /a." }, finish("stop")],
  [{ type: "text", text: "You are welcome." }, finish("stop")],
]);
const tk = countingToolkit("deleteFile");

const p1 = [{ role: "user", content: [{ type: "text", text: "delete /a" }] }];
const r1 = await generate(model, tk, p1);
const approval = r1.content.find((p) => p.type === "tool-approval-request");
const h1 = history(p1, r1);
const p2 = Prompt.fromMessages([...h1, ...Prompt.make([{ role: "tool", content: [{ type: "tool-approval-response", approvalId: approval.approvalId, approved: true }] }]).content]);
const r2 = await generate(model, tk, p2);
const h2 = [...p2.content, ...Prompt.fromResponseParts(r2.content).content];
const p3 = Prompt.fromMessages([...h2, ...Prompt.make([{ role: "user", content: [{ type: "text", text: "thanks" }] }]).content]);
await generate(model, tk, p3);

console.log("turn 2 response parts:", r2.content.map((p) => p.type).join(", "));
console.log("model call 3 prompt:", prompts[2].map((m) => `${m.role}[${typeof m.content === "string" ? "text" : m.content.map((p) => p.type + (p.id ? " " + p.id : "")).join(", ")}]`).join(" "));
console.log("deleteFile runs:", show(tk.runs));

// The result of c1 must follow the assistant message holding c1, before
// any later assistant message; and c1 must run once.
const msgs = prompts[2];
const at = msgs.findIndex((m) => m.role === "assistant" && m.content.some((p) => p.type === "tool-call" && p.id === "c1"));
const next = msgs[at + 1];
const placed = next?.role === "tool" && next.content.some((p) => p.type === "tool-result" && p.id === "c1");
if (!placed || tk.runs.length !== 1) {
  console.log(`DEFECT: ${!placed ? "the result of c1 does not follow its call in the next model call's prompt" : ""}${!placed && tk.runs.length !== 1 ? "; " : ""}${tk.runs.length !== 1 ? `c1 ran ${tk.runs.length} times` : ""}`);
  process.exit(1);
}
console.log("OK");
