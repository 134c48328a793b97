// REQ-04 (M5): a dynamic approval policy is asked per call with the call's
// input, its id and the conversation. Mastra's per-call policy
// (createTool({requireApproval: fn}), NeedsApprovalFn) is given the call's
// input and the request context only: two calls with the same input cannot
// be told apart by the policy. Nothing runs unapproved: a policy that throws
// requires approval.
import { Agent, InMemoryStore, Mastra, createTool } from "./sdk.mjs";
import { call, scriptedModel, show, text } from "./lib.mjs";

const asked = [];
const runs = [];
const tool = createTool({
  id: "deleteFile", description: "deleteFile", inputSchema: { type: "object" },
  requireApproval: async (input, ctx) => {
    asked.push({ input, ctxKeys: Object.keys(ctx ?? {}) });
    return String(input?.path ?? "").startsWith("/etc");
  },
  execute: async (input, ctx) => { runs.push(ctx?.agent?.toolCallId); return { ok: true }; },
});
const model = scriptedModel([[call("c_etc", "deleteFile", { path: "/etc/x" })], [text("Done.")]]);
const mastra = new Mastra({ storage: new InMemoryStore(), logger: false });
mastra.addAgent(new Agent({ id: "repro", name: "repro", instructions: "", model, tools: { deleteFile: tool } }), "repro");
const out = await mastra.getAgent("repro").generate([{ role: "user", content: "delete /etc/x" }]);
console.log("finishReason:", out.finishReason, "; the policy was asked with:", show(asked), "; ran:", show(runs));
const gotId = asked.some((a) => JSON.stringify(a).includes("c_etc"));
if (asked.length > 0 && !gotId) {
  console.log("DEFECT: the per-call policy is not given the call's id (only its input and the request context)");
  process.exit(1);
}
console.log("OK");
