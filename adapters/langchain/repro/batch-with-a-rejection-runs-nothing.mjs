// LangChain.js alone (no kit): a step with two calls that need approval and
// one free call, answered [approve, reject], runs nothing.
//
//   versions/1.5.14/node_modules/.bin/node repro/batch-with-a-rejection-runs-nothing.mjs versions/1.5.14
//
// humanInTheLoopMiddleware (dist/agents/middleware/hitl.js:482-500 in
// langchain 1.5.14) keeps only the rejected calls in the step's AIMessage
// when any decision is a rejection (line 493), and jumps back to the model
// (line 500): the approved call vanishes from the checkpointed message and
// never runs; the free call stays in the message (line 482) but the tools
// node is skipped, so the model gets a call without a result (a prompt the
// providers refuse with 400); and the free call moves ahead of the
// interrupted ones. Upstream: langchainjs #11125.
import { resolve, join } from "node:path";
import { pathToFileURL } from "node:url";

const dir = resolve(process.argv[2] ?? "versions/1.5.14");
const sdk = await import(pathToFileURL(join(dir, "sdk.mjs")).href);
const { createAgent, humanInTheLoopMiddleware, tool, MemorySaver, Command, AIMessage, BaseChatModel } = sdk;

const prompts = [];
class ScriptedModel extends BaseChatModel {
  _llmType() { return "scripted"; }
  bindTools() { return this; }
  async _generate(messages) {
    prompts.push(messages.map((m) => ({ type: m._getType(), tool_calls: m.tool_calls?.map((c) => c.id), tool_call_id: m.tool_call_id })));
    const message = prompts.length === 1
      ? new AIMessage({ content: "", tool_calls: [
          { type: "tool_call", id: "d1", name: "deleteFile", args: { path: "/a" } },
          { type: "tool_call", id: "r1", name: "readFile", args: { path: "/c" } },
          { type: "tool_call", id: "d2", name: "deleteFile", args: { path: "/b" } }] })
      : new AIMessage("done");
    return { generations: [{ text: "", message }] };
  }
}

const ran = [];
const deleteFile = tool(async ({ path }) => { ran.push(`deleteFile ${path}`); return `deleted ${path}`; },
  { name: "deleteFile", description: "Deletes a file.", schema: { type: "object", properties: { path: { type: "string" } } } });
const readFile = tool(async ({ path }) => { ran.push(`readFile ${path}`); return `text of ${path}`; },
  { name: "readFile", description: "Reads a file.", schema: { type: "object", properties: { path: { type: "string" } } } });

const agent = createAgent({
  model: new ScriptedModel({}),
  tools: [deleteFile, readFile],
  middleware: [humanInTheLoopMiddleware({ interruptOn: { deleteFile: { allowedDecisions: ["approve", "edit", "reject"] } } })],
  checkpointer: new MemorySaver(),
});
const config = { configurable: { thread_id: "repro" } };
const first = await agent.invoke({ messages: [{ role: "user", content: "delete /a and /b, read /c" }] }, config);
console.log("asked:", first.__interrupt__?.[0]?.value?.actionRequests?.map((r) => `${r.name} ${r.args.path}`));
await agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }, { type: "reject", message: "keep /b" }] } }), config);
const state = await agent.graph.getState(config);
const ai = state.values.messages.find((m) => m._getType() === "ai" && m.tool_calls?.length);
console.log("tools that ran:", ran);
console.log("the step's AIMessage now calls:", ai.tool_calls.map((c) => c.id));
console.log("results:", state.values.messages.filter((m) => m._getType() === "tool").map((m) => `${m.tool_call_id} (${m.status}): ${m.content}`));
console.log("the model's second prompt:", JSON.stringify(prompts[1]));
const defect = !ran.includes("deleteFile /a") && !ran.includes("readFile /c");
console.log(defect ? "REPRODUCED: the approved call and the free call did not run" : "not reproduced");
process.exit(defect ? 1 : 0);
