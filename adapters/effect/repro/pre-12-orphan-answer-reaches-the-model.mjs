// PRE-12 (SHOULD) / ERR-01: an approval response that matches no request
// must not reach the model, and one with an empty approval id must be
// refused. stripResolvedApprovals removes only the parts of approvals it
// matched, so a response matching no request stays in the prompt the model
// gets; Prompt's schema takes an empty approvalId ("") as valid, so the
// turn is neither refused nor kept from the model.
import { Prompt } from "./sdk.mjs";
import { call, countingToolkit, finish, generate, history, scriptedModel, show } from "./lib.mjs";

let defect = false;
for (const [name, stray] of [["a response matching no request", "no-such-approval"], ["a response with an empty approval id", ""]]) {
  const { model, prompts } = scriptedModel([
    [call("c1", "deleteFile", { path: "/a" }), finish("tool-calls")],
    [{ type: "text", text: "Deleted /a." }, finish("stop")],
  ]);
  const tk = countingToolkit("deleteFile");
  const p1 = [{ role: "user", content: [{ type: "text", text: "delete /a" }] }];
  const r1 = await generate(model, tk, p1);
  const approvalId = r1.content.find((p) => p.type === "tool-approval-request").approvalId;
  let outcome;
  try {
    const p2 = Prompt.fromMessages([...history(p1, r1), ...Prompt.make([{ role: "tool", content: [
      { type: "tool-approval-response", approvalId, approved: true },
      { type: "tool-approval-response", approvalId: stray, approved: true, reason: "orphan approval" },
    ] }]).content]);
    await generate(model, tk, p2);
    outcome = "accepted";
  } catch (e) {
    outcome = `refused: ${e}`;
  }
  const forwarded = prompts.length > 1 && prompts[1].some((m) => m.role === "tool" && m.content.some((p) => p.type === "tool-approval-response" && p.approvalId === stray));
  console.log(`${name}: the turn was ${outcome}; the model ${forwarded ? "received" : "did not receive"} it; runs ${show(tk.runs)}`);
  if (forwarded) defect = true;
}
if (defect) {
  console.log("DEFECT: an approval response matching no request reached the model");
  process.exit(1);
}
console.log("OK");
