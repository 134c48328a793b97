// REQ-05: a dynamic policy that fails to evaluate must fail closed (ask
// approval, or fail the turn); the tool must never run unapproved.
// Effect's isApprovalNeeded ends in Effect.orElseSucceed(constFalse): a
// policy that fails reads as "no approval needed", and the call runs.
import { Effect } from "./sdk.mjs";
import { call, countingToolkit, finish, generate, scriptedModel, show } from "./lib.mjs";

const { model } = scriptedModel([[call("c1", "deleteFile", { path: "/etc/passwd" }), finish("tool-calls")]]);
const tk = countingToolkit("deleteFile", () => Effect.fail("the policy service is down"));
let outcome;
try {
  const r = await generate(model, tk, [{ role: "user", content: [{ type: "text", text: "delete /etc/passwd" }] }]);
  outcome = r.content.map((p) => p.type).join(", ");
} catch (e) {
  outcome = `the turn failed: ${e}`;
}
console.log("turn:", outcome);
console.log("deleteFile runs:", show(tk.runs));
if (tk.runs.length > 0) {
  console.log("DEFECT: the call ran although its policy failed (no approval was asked)");
  process.exit(1);
}
console.log("OK");
