// SEC-02 (SHOULD): an approved call runs with the tool and input shown for
// approval. A RunState string is plain JSON with no integrity check:
// RunState.fromString takes a pending call whose arguments or tool name
// were changed after the approval was requested, and state.approve() of
// that interruption runs the changed call.
import { run, RunState } from "./sdk.mjs";
import { agentWith, call, recordingTool, scriptedModel, show, text } from "./lib.mjs";

let defect = false;
for (const [name, change] of [
  ["changed input", (s) => s.replaceAll('{\\"to\\":\\"alice\\"}', '{\\"to\\":\\"mallory\\"}')],
  // Every mention of the tool's name, as a JSON string and escaped inside one.
  ["changed tool", (s) => s.replaceAll('"wireMoney"', '"wipeDisk"').replaceAll('\\"wireMoney\\"', '\\"wipeDisk\\"')],
]) {
  const model = scriptedModel([[call("c1", "wireMoney", { to: "alice" })], [text("Done.")]]);
  const wire = recordingTool("wireMoney");
  const wipe = recordingTool("wipeDisk");
  const agent = agentWith(model, wire.tool, wipe.tool);
  const r1 = await run(agent, [{ role: "user", content: "pay alice" }]);
  const saved = r1.state.toString();
  const tampered = change(saved);
  let outcome = "resumed";
  try {
    const state = await RunState.fromString(agent, tampered);
    for (const it of state.getInterruptions()) state.approve(it);
    await run(agent, state);
  } catch (e) {
    outcome = `refused: ${e.message}`;
  }
  console.log(`${name}: the state was ${tampered === saved ? "NOT changed (script error)" : "changed"}; ${outcome}; wireMoney ran ${show(wire.runs.map((r) => r.input))}, wipeDisk ran ${show(wipe.runs.map((r) => r.input))}`);
  if (wire.runs.some((r) => r.input.to === "mallory") || wipe.runs.length > 0) defect = true;
}
if (defect) {
  console.log("DEFECT: an approved call ran with a tool or input changed in the run state after the approval was requested");
  process.exit(1);
}
console.log("OK");
