// Genkit alone (no kit): an interrupted call restarted with replaceInput
// runs with the edited input, but the model's next prompt shows the call
// with its original input beside the result of the edited run.
//
//   versions/1.42.0/node_modules/.bin/node repro/edited-restart-shows-the-original-call.mjs versions/1.42.0
//
// restartTool (@genkit-ai/ai/lib/tool.mjs:123-137) builds the restart with
// the new input and keeps the original in metadata.replacedInput; on
// resume, resolveResumedToolRequest (@genkit-ai/ai/lib/generate/
// resolve-tool-requests.mjs:203-222) runs the restart but puts the model
// message's own part back (`toolRequest: {...part, ...}`), whose input is
// the original one.
import { resolve, join } from "node:path";
import { pathToFileURL } from "node:url";

const dir = resolve(process.argv[2] ?? "versions/1.42.0");
const { genkit, restartTool, toolApproval } = await import(pathToFileURL(join(dir, "sdk.mjs")).href);

const ai = genkit({});
const prompts = [];
const model = ai.defineModel({ apiVersion: "v2", name: "repro/scripted", supports: { tools: true, multiturn: true } }, async (req) => {
  prompts.push(req.messages);
  if (prompts.length === 1) {
    return { message: { role: "model", content: [{ toolRequest: { name: "deleteFile", ref: "call_1", input: { path: "/etc" } } }] }, finishReason: "stop" };
  }
  return { message: { role: "model", content: [{ text: "done" }] }, finishReason: "stop" };
});
const ran = [];
const deleteFile = ai.defineTool({ name: "deleteFile", description: "Deletes a file.", inputJsonSchema: { type: "object", properties: { path: { type: "string" } } } },
  async (input) => { ran.push(input.path); return { deleted: input.path }; });

const first = await ai.generate({ model, prompt: "clean up", tools: [deleteFile], use: [toolApproval({ approved: [] })] });
console.log("finishReason:", first.finishReason);
const interrupt = first.interrupts[0];
const restart = restartTool(interrupt, { toolApproved: true }, { replaceInput: { path: "/tmp/scratch" } });
await ai.generate({ model, messages: first.messages, tools: [deleteFile], use: [toolApproval({ approved: [] })], resume: { restart: [restart] } });
const shown = prompts[1].flatMap((m) => m.content).find((p) => p.toolRequest?.ref === "call_1");
const result = prompts[1].flatMap((m) => m.content).find((p) => p.toolResponse?.ref === "call_1");
console.log("the tool ran with:", ran);
console.log("the model's second prompt shows the call with:", JSON.stringify(shown?.toolRequest?.input), "beside the result", JSON.stringify(result?.toolResponse?.output));
const defect = ran.includes("/tmp/scratch") && shown?.toolRequest?.input?.path === "/etc";
console.log(defect ? "REPRODUCED: the model sees the original call beside the edited run's result" : "not reproduced");
process.exit(defect ? 1 : 0);
