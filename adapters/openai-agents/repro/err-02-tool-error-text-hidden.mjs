// ERR-02: a tool that fails after its call was approved gives the model an
// error result carrying the tool's message. The SDK's default errorFunction
// (tool.mjs, defaultToolErrorFunction) returns a fixed text without
// inspecting the error, so the model never learns what failed.
import { run, RunState } from "./sdk.mjs";
import { agentWith, call, recordingTool, scriptedModel, show, text } from "./lib.mjs";

const model = scriptedModel([[call("c1", "charge", { amount: 10 })], [text("Sorry.")]]);
const charge = recordingTool("charge", { fails: "card declined" });
const agent = agentWith(model, charge.tool);
const r1 = await run(agent, [{ role: "user", content: "charge 10" }]);
const state = await RunState.fromString(agent, r1.state.toString());
state.approve(state.getInterruptions()[0]);
await run(agent, state);
const result = model.inputs[1].find((i) => i.type === "function_call_result" && i.callId === "c1");
console.log("charge ran:", charge.runs.length, "time(s); the model received:", show(result?.output));
if (!JSON.stringify(result?.output ?? "").includes("card declined")) {
  console.log("DEFECT: the model's error result does not carry the tool's message");
  process.exit(1);
}
console.log("OK");
