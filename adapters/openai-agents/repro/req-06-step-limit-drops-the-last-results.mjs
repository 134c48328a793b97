// REQ-06: when a turn ends because its step limit is reached, every call of
// the last step still has a result or a pending approval in the turn's
// messages. With maxTurns, the SDK runs the calls of the last allowed model
// turn, then throws MaxTurnsExceededError before the next model call
// (runner/turnPreparation.mjs, prepareTurn): the run returns nothing, and
// the results of the calls that ran are only in the error's state.
import { run } from "./sdk.mjs";
import { agentWith, call, recordingTool, scriptedModel, show } from "./lib.mjs";

const model = scriptedModel([[call("l1", "lookup", { q: "one" })], [call("l2", "lookup", { q: "two" })]]);
const lookup = recordingTool("lookup", { needsApproval: false });
const agent = agentWith(model, lookup.tool);
let outcome;
try {
  const r = await run(agent, [{ role: "user", content: "look up one and two" }], { maxTurns: 2 });
  outcome = `finished with ${r.newItems.length} item(s)`;
} catch (e) {
  outcome = `threw ${e.constructor.name}: ${e.message}`;
}
console.log("lookup ran for:", show(lookup.runs.map((r) => r.callId)), "; the run", outcome);
if (outcome.startsWith("threw")) {
  console.log("DEFECT: the turn that reached its step limit returned no messages: the results of l1 and l2 are lost to the application");
  process.exit(1);
}
console.log("OK");
