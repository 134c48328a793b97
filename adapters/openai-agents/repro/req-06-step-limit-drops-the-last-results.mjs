// REQ-06: when a turn ends because its step limit is reached, every call of
// the last step still has a result or a pending approval in the turn's
// messages. With maxTurns, the SDK runs the calls of the last allowed model
// turn, then throws MaxTurnsExceededError before the next model call
// (runner/turnPreparation.mjs, prepareTurn): the run returns nothing, and
// the results of the calls that ran are in the error's state (AgentsError
// .state, documented), where an application reads them: nothing is lost
// (the finding is withdrawn, issue 18; this script shows the behaviour).
import { run } from "./sdk.mjs";
import { agentWith, call, recordingTool, scriptedModel, show } from "./lib.mjs";

const model = scriptedModel([[call("l1", "lookup", { q: "one" })], [call("l2", "lookup", { q: "two" })]]);
const lookup = recordingTool("lookup", { needsApproval: false });
const agent = agentWith(model, lookup.tool);
let outcome;
let stateResults = [];
try {
  const r = await run(agent, [{ role: "user", content: "look up one and two" }], { maxTurns: 2 });
  outcome = `finished with ${r.newItems.length} item(s)`;
} catch (e) {
  outcome = `threw ${e.constructor.name}: ${e.message}`;
  const { RunResult } = await import("./sdk.mjs");
  if (e.state) stateResults = new RunResult(e.state).newItems.filter((it) => it.type === "tool_call_output_item").map((it) => it.rawItem.callId);
}
console.log("lookup ran for:", show(lookup.runs.map((r) => r.callId)), "; the run", outcome, "; results on the error's state:", show(stateResults));
if (outcome.startsWith("threw")) {
  console.log("SHOWN: the turn that reached its step limit threw and returned no messages; the results of the calls that ran are on the error's state");
  process.exit(1);
}
console.log("OK");
