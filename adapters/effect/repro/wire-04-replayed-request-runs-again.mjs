// WIRE-04 (SHOULD): replaying the same request does not execute a tool
// again. generateText keeps no record of the approvals it resolved; a
// request sent again (a client retrying after a timeout) resolves the same
// approval again and runs the call a second time.
import { Prompt } from "./sdk.mjs";
import { call, countingToolkit, finish, generate, history, scriptedModel, show } from "./lib.mjs";

const { model } = scriptedModel([
  [call("c1", "ship", { path: "order-7" }), finish("tool-calls")],
  [{ type: "text", text: "Shipped." }, finish("stop")],
  [{ type: "text", text: "Shipped." }, finish("stop")],
]);
const tk = countingToolkit("ship");
const p1 = [{ role: "user", content: [{ type: "text", text: "ship order 7" }] }];
const r1 = await generate(model, tk, p1);
const approvalId = r1.content.find((p) => p.type === "tool-approval-request").approvalId;
const p2 = Prompt.fromMessages([...history(p1, r1), ...Prompt.make([{ role: "tool", content: [{ type: "tool-approval-response", approvalId, approved: true }] }]).content]);
await generate(model, tk, p2);
await generate(model, tk, p2); // the same request again
console.log("ship runs:", show(tk.runs));
if (tk.runs.length > 1) {
  console.log("DEFECT: the replayed request ran the approved call again");
  process.exit(1);
}
console.log("OK");
