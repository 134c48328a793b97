// PRE-14 (SHOULD): an answer that resolves nothing does not block what
// follows. A history trimmed at its start keeps an answered approval
// request whose tool call was cut. The SDK pairs the answer with the
// request, finds no call (toolCall undefined) and, the call having no
// result, takes it as an approval still to run: the turn dies before the
// model is called, and the conversation cannot go on.
import { call, countingToolkit, finish, generate, scriptedModel, show } from "./lib.mjs";

const { model, prompts } = scriptedModel([[call("c1", "deleteFile", { path: "/a" }), finish("tool-calls")]]);
const tk = countingToolkit("deleteFile");
const prompt = [
  { role: "user", content: [{ type: "text", text: "delete /old" }] },
  { role: "assistant", content: [{ type: "tool-approval-request", approvalId: "old_approval", toolCallId: "old_call" }] },
  { role: "tool", content: [{ type: "tool-approval-response", approvalId: "old_approval", approved: true }] },
  { role: "assistant", content: [{ type: "text", text: "Deleted /old." }] },
  { role: "user", content: [{ type: "text", text: "now delete /a" }] },
];
let failure;
try {
  const r = await generate(model, tk, prompt);
  console.log("turn finished:", show(r.content.map((p) => p.type)));
} catch (e) {
  failure = e;
  console.log("turn failed:", String(e?.message ?? e).split("\n")[0]);
}
console.log("model calls:", prompts.length, "runs:", show(tk.runs));
if (failure !== undefined && prompts.length === 0) {
  console.log("DEFECT: the old answer whose call was cut killed the turn before the model was called");
  process.exit(1);
}
console.log("OK");
