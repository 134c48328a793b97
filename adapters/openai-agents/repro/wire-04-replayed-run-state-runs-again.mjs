// WIRE-04 (SHOULD): replaying the same request does not run a tool again.
// A RunState string can be resumed any number of times: each
// RunState.fromString gives a fresh state whose interruption, approved,
// runs the call again (nothing records that the approval was consumed).
import { run, RunState } from "./sdk.mjs";
import { agentWith, call, recordingTool, scriptedModel, show, text } from "./lib.mjs";

const model = scriptedModel([[call("c1", "ship", { order: 7 })], [text("Shipped.")], [text("Shipped.")]]);
const ship = recordingTool("ship");
const agent = agentWith(model, ship.tool);
const r1 = await run(agent, [{ role: "user", content: "ship order 7" }]);
const saved = r1.state.toString();
for (let i = 0; i < 2; i++) {
  const state = await RunState.fromString(agent, saved); // the same request, sent again
  state.approve(state.getInterruptions()[0]);
  await run(agent, state);
}
console.log("ship ran for:", show(ship.runs.map((r) => r.callId)));
if (ship.runs.length > 1) {
  console.log("DEFECT: the replayed resume ran the approved call again");
  process.exit(1);
}
console.log("OK");
