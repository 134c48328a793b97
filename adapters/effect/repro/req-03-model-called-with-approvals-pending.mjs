// REQ-03 / WIRE-01: while an approval is still unanswered the turn must
// not call the model (the call would reach it with no result). When only
// some of a step's approvals are answered, generateText resolves those and
// calls the model anyway: the unanswered call goes out dangling, which
// OpenAI refuses ("An assistant message with 'tool_calls' must be followed
// by tool messages responding to each 'tool_call_id'").
import { Prompt } from "./sdk.mjs";
import { call, countingToolkit, finish, generate, history, scriptedModel, show } from "./lib.mjs";

const { model, prompts } = scriptedModel([
  [call("c1", "deleteFile", { path: "/a" }), call("c2", "deleteFile", { path: "/b" }), finish("tool-calls")],
  [{ type: "text", text: "Deleted /a." }, finish("stop")],
]);
const tk = countingToolkit("deleteFile");
const p1 = [{ role: "user", content: [{ type: "text", text: "delete /a and /b" }] }];
const r1 = await generate(model, tk, p1);
const first = r1.content.find((p) => p.type === "tool-approval-request" && p.toolCallId === "c1").approvalId;
await generate(model, tk, Prompt.fromMessages([...history(p1, r1), ...Prompt.make([{ role: "tool", content: [{ type: "tool-approval-response", approvalId: first, approved: true }] }]).content]));
console.log("model calls:", prompts.length, "deleteFile runs:", show(tk.runs));
if (prompts.length > 1) {
  const m = prompts[1];
  const results = new Set(m.flatMap((x) => (x.role === "tool" ? x.content.filter((p) => p.type === "tool-result").map((p) => p.id) : [])));
  console.log("model call 2 prompt:", m.map((x) => `${x.role}[${typeof x.content === "string" ? "text" : x.content.map((p) => p.type + (p.id ? " " + p.id : "")).join(", ")}]`).join(" "));
  console.log(`DEFECT: the model was called while c2 waits for approval; c2 ${results.has("c2") ? "has" : "has no"} result in that prompt`);
  process.exit(1);
}
console.log("OK");
