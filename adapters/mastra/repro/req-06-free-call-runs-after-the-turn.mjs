// REQ-06 / PRE-08: a call that needs no approval, in a step where another
// waits for approval, runs in that turn and its result is in the turn's
// messages; stream mode resolves a step as generate mode does. Mastra's
// generate() leaves the free call unrun until the approval is answered;
// its stream() ends the turn's stream (suspended, the approval requested)
// and runs the free call afterwards, once the application has taken the
// turn as over: a side effect outside any turn, whose result the turn
// never showed. That late run is Agent.stream()'s eager tool execution
// (on by default): with eagerToolExecution: false, the stream resolves the
// step as generate() does.
import { agentWith, call, recordingTool, scriptedModel, show, text } from "./lib.mjs";

const tick = () => new Promise((resolve) => setImmediate(resolve));
let defect = false;
for (const mode of ["generate", "stream", "stream, eagerToolExecution: false"]) {
  const runs = [];
  const model = scriptedModel([[call("c1", "deleteFile", { path: "/a" }), call("c2", "readFile", { path: "/b" })], [text("Done.")]]);
  const agent = agentWith(model, { deleteFile: recordingTool("deleteFile", true, runs), readFile: recordingTool("readFile", false, runs) });
  let atEnd;
  if (mode === "generate") {
    await agent.generate([{ role: "user", content: "read /b, delete /a" }]);
    atEnd = [...runs];
  } else {
    const s = await agent.stream([{ role: "user", content: "read /b, delete /a" }], mode === "stream" ? {} : { eagerToolExecution: false });
    for await (const _ of s.fullStream);
    await s.finishReason;
    atEnd = [...runs];
  }
  for (let i = 0; i < 50; i++) await tick(); // let whatever the run left behind happen
  console.log(`${mode}: ran when the turn ended: ${show(atEnd)}; ran afterwards: ${show(runs.slice(atEnd.length))}`);
  if (!atEnd.includes("c2")) defect = true;
}
if (defect) {
  console.log("DEFECT: the call that needs no approval did not run within the turn (generate: not at all until the answer; stream: after the turn ended)");
  process.exit(1);
}
console.log("OK");
