// PRE-11: duplicate or conflicting responses for one call lead to at most
// one execution and exactly one result. collectToolApprovals collects every
// tool-approval-response into a list without merging those of one request;
// each approved entry is run (executeApprovedToolCalls) and each denied one
// gets a denial result (createDenialResults).
import { Prompt } from "./sdk.mjs";
import { call, countingToolkit, finish, generate, history, scriptedModel, show } from "./lib.mjs";

const cases = [
  ["the same approval twice", [true, true]],
  ["an approval and a denial", [true, false]],
];
let defect = false;
for (const [name, answers] of cases) {
  const { model, prompts } = scriptedModel([
    [call("c1", "deleteFile", { path: "/a" }), finish("tool-calls")],
    [{ type: "text", text: "Done." }, finish("stop")],
  ]);
  const tk = countingToolkit("deleteFile");
  const p1 = [{ role: "user", content: [{ type: "text", text: "delete /a" }] }];
  const r1 = await generate(model, tk, p1);
  const approvalId = r1.content.find((p) => p.type === "tool-approval-request").approvalId;
  const answer = Prompt.make([{ role: "tool", content: answers.map((approved) => ({ type: "tool-approval-response", approvalId, approved })) }]).content;
  const r2 = await generate(model, tk, Prompt.fromMessages([...history(p1, r1), ...answer]));
  const results = prompts[1].flatMap((m) => (m.role === "tool" ? m.content.filter((p) => p.type === "tool-result" && p.id === "c1") : []));
  console.log(`${name}: deleteFile ran ${tk.runs.length} time(s); the model received ${results.length} result(s) for c1: ${show(results.map((r) => r.result))}`);
  if (tk.runs.length > 1 || results.length !== 1) defect = true;
  void r2;
}
if (defect) {
  console.log("DEFECT: one call answered twice ran more than once, or its prompt holds more than one result");
  process.exit(1);
}
console.log("OK");
