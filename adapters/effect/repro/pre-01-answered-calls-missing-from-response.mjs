// PRE-01, PRE-02, PART-01, ERR-02 (4.0 betas): generateText runs an
// approved call (and gives a denied one its denial) before calling the
// model, and sends those results to the model, but the response it returns
// holds only the model's reply and the results of the calls in that reply
// (return [...content, ...toolResults]): the answered calls' results are
// not in it. An application that keeps its history from the responses (as
// Effect's own Chat does) holds the answered approvals with no result, and
// resolves them again on the next request. streamText emits them as
// tool-result parts; 4.1.0 returns them from generateText too.
import { call, countingToolkit, finish, generate, history, scriptedModel, show } from "./lib.mjs";
import { Prompt } from "./sdk.mjs";

const { model, prompts } = scriptedModel([
  [call("c1", "deleteFile", { path: "/a" }), call("c2", "deleteFile", { path: "/b" }), finish("tool-calls")],
  [{ type: "text", text: "Deleted /a, kept /b." }, finish("stop")],
]);
const tk = countingToolkit("deleteFile");
const p1 = [{ role: "user", content: [{ type: "text", text: "delete /a and /b" }] }];
const r1 = await generate(model, tk, p1);
const ids = Object.fromEntries(r1.content.filter((p) => p.type === "tool-approval-request").map((p) => [p.toolCallId, p.approvalId]));
const p2 = Prompt.fromMessages([
  ...history(p1, r1),
  ...Prompt.make([
    {
      role: "tool",
      content: [
        { type: "tool-approval-response", approvalId: ids.c1, approved: true },
        { type: "tool-approval-response", approvalId: ids.c2, approved: false, reason: "keep /b" },
      ],
    },
  ]).content,
]);
const r2 = await generate(model, tk, p2);
const sent = prompts[1].flatMap((m) => (typeof m.content === "string" ? [] : m.content)).filter((p) => p.type === "tool-result").map((p) => p.id);
const returned = r2.content.filter((p) => p.type === "tool-result").map((p) => p.id);
console.log("deleteFile runs:", show(tk.runs));
console.log("results the model received:", show(sent));
console.log("results in the response:", show(returned));
const missing = ["c1", "c2"].filter((id) => !returned.includes(id));
if (missing.length > 0) {
  console.log(`DEFECT: the response holds no result for ${missing.join(", ")}, which the model received`);
  process.exit(1);
}
console.log("OK");
