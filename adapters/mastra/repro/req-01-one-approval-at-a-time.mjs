// REQ-01 / REQ-06: every call of a step that needs approval gets an
// approval request in that turn, and a call that needs none runs in that
// turn. Mastra runs a step's tool calls one after another whenever a tool
// that can ask approval is registered, and suspends the run at the first
// call that needs approval: the turn holds one approval request, and the
// calls after it (those needing approval and those needing none) neither
// run nor wait for an answer until that one is answered.
import { agentWith, call, recordingTool, scriptedModel, show, text } from "./lib.mjs";

const runs = [];
const model = scriptedModel([[call("d1", "deleteFile", { path: "/a" }), call("s1", "search", { q: "x" }), call("d2", "deleteFile", { path: "/b" })], [text("Done.")]]);
const agent = agentWith(model, { deleteFile: recordingTool("deleteFile", true, runs), search: recordingTool("search", false, runs) });
const out = await agent.generate([{ role: "user", content: "delete /a and /b, search x" }]);
const pending = Object.keys(out.messages?.at(-1)?.content?.metadata?.pendingToolApprovals ?? {});
console.log("finishReason:", out.finishReason, "; the call the run waits on:", out.suspendPayload?.toolCallId, "; pending approvals:", show(pending), "; ran:", show(runs));
if (out.finishReason === "suspended" && (pending.length < 2 || !runs.includes("s1"))) {
  console.log("DEFECT: the turn asks approval for one call of the step only, and the call that needs none did not run");
  process.exit(1);
}
console.log("OK");
