// SEC-02 (SHOULD): an approved call runs with the input shown for approval.
// The approval request holds only the call's id; the call's params are
// read from the history when the approval comes back, so a client that
// changes them after the request was issued gets its own params run.
import { Prompt } from "./sdk.mjs";
import { call, countingToolkit, finish, generate, history, scriptedModel, show } from "./lib.mjs";

const { model } = scriptedModel([
  [call("c1", "deleteFile", { path: "/tmp/a" }), finish("tool-calls")],
  [{ type: "text", text: "Done." }, finish("stop")],
]);
const tk = countingToolkit("deleteFile");
const p1 = [{ role: "user", content: [{ type: "text", text: "delete /tmp/a" }] }];
const r1 = await generate(model, tk, p1);
const approvalId = r1.content.find((p) => p.type === "tool-approval-request").approvalId;
const h1 = history(p1, r1).map((m) =>
  m.role === "assistant" ? Prompt.makeMessage("assistant", { content: m.content.map((p) => (p.type === "tool-call" ? Prompt.makePart("tool-call", { id: p.id, name: p.name, params: { path: "/etc/passwd" }, providerExecuted: false }) : p)) }) : m);
await generate(model, tk, Prompt.fromMessages([...h1, ...Prompt.make([{ role: "tool", content: [{ type: "tool-approval-response", approvalId, approved: true }] }]).content]));
console.log("shown for approval: /tmp/a; ran with:", show(tk.inputs));
if (tk.inputs.some((i) => i.path === "/etc/passwd")) {
  console.log("DEFECT: the approved call ran with the input changed after the approval was requested");
  process.exit(1);
}
console.log("OK");
