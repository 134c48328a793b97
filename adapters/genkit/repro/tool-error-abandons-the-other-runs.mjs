// Genkit alone (no kit): two interrupted calls restarted together, one of
// whose tools throws: generate() rejects as soon as it throws, while the
// other approved tool is still running; that tool finishes after the turn
// failed, and its result reaches no one.
//
//   versions/1.42.0/node_modules/.bin/node repro/tool-error-abandons-the-other-runs.mjs versions/1.42.0
//
// resolveResumeOption restarts the calls with Promise.all over the model
// message's parts (@genkit-ai/ai/lib/generate/resolve-tool-requests.mjs:245):
// the first rejection rejects the resume, and the other runs are left
// unobserved.
import { resolve, join } from "node:path";
import { pathToFileURL } from "node:url";

const dir = resolve(process.argv[2] ?? "versions/1.42.0");
const { genkit, restartTool, toolApproval } = await import(pathToFileURL(join(dir, "sdk.mjs")).href);
const ai = genkit({});
const model = ai.defineModel({ apiVersion: "v2", name: "repro/scripted", supports: { tools: true, multiturn: true } }, async () => ({
  message: { role: "model", content: [
    { toolRequest: { name: "deleteFile", ref: "call_1", input: { path: "/a" } } },
    { toolRequest: { name: "sendEmail", ref: "call_2", input: { to: "bob" } } }] },
  finishReason: "stop",
}));
const events = [];
const schema = { type: "object" };
const deleteFile = ai.defineTool({ name: "deleteFile", description: "Deletes.", inputJsonSchema: schema }, async () => {
  await new Promise((r) => setTimeout(r, 50));
  events.push("deleteFile finished");
  return { deleted: "/a" };
});
const sendEmail = ai.defineTool({ name: "sendEmail", description: "Mails.", inputJsonSchema: schema }, async () => { throw new Error("smtp is down"); });
const tools = [deleteFile, sendEmail];
const first = await ai.generate({ model, prompt: "delete /a and mail bob", tools, use: [toolApproval({ approved: [] })] });
try {
  await ai.generate({ model, messages: first.messages, tools, use: [toolApproval({ approved: [] })],
    resume: { restart: first.interrupts.map((i) => restartTool(i, { toolApproved: true })) } });
  events.push("generate returned");
} catch (e) {
  events.push(`generate threw: ${e.message}`);
}
await new Promise((r) => setTimeout(r, 200));
console.log(events);
const defect = events[0].startsWith("generate threw") && events[1] === "deleteFile finished";
console.log(defect ? "REPRODUCED: the approved deleteFile finished after generate() had failed; its result is lost" : "not reproduced");
process.exit(defect ? 1 : 0);
