// REQ-03: a pending approval ends the turn with finish reason tool-calls.
//
// The model calls a tool that needs approval and gives the finish reason
// "stop" beside the call (models do). generateText asks approval, but the
// response's finishReason is the model's "stop": the getter reads the
// provider's finish part, and the approval requests are added beside it
// unchanged. An application that reads the finish reason learns nothing of
// the approval it must ask.
import { call, countingToolkit, finish, generate, scriptedModel } from "./lib.mjs";

const { model } = scriptedModel([[call("c1", "deleteFile", { path: "/a" }), finish("stop")]]);
const tk = countingToolkit("deleteFile");
const r = await generate(model, tk, [{ role: "user", content: [{ type: "text", text: "delete /a" }] }]);
const requests = r.content.filter((p) => p.type === "tool-approval-request").length;
console.log(`approval requests: ${requests}, finishReason: ${r.finishReason}, deleteFile runs: ${tk.runs.length}`);
if (requests === 1 && r.finishReason !== "tool-calls") {
  console.log('DEFECT: the turn waits for an approval and ends with the model\'s finish reason, not "tool-calls"');
  process.exit(1);
}
console.log("OK");
