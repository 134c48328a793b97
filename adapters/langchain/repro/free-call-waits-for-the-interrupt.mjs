// LangChain.js alone (no kit): a step with a call that needs approval and a
// call that needs none runs neither until the interrupt is answered; the
// free call's result is not in the turn that asked.
//
//   versions/1.5.14/node_modules/.bin/node repro/free-call-waits-for-the-interrupt.mjs versions/1.5.14
//
// humanInTheLoopMiddleware's afterModel hook interrupts the whole step
// (dist/agents/middleware/hitl.js:470) before the tools node runs; the
// auto-approved calls join the step's calls only after the decisions come
// back (hitl.js:482). Its doc comment says otherwise: "Auto-approved tools
// execute immediately without interruption" (hitl.d.ts:580).
import { resolve, join } from "node:path";
import { pathToFileURL } from "node:url";

const dir = resolve(process.argv[2] ?? "versions/1.5.14");
const { createAgent, humanInTheLoopMiddleware, tool, MemorySaver, AIMessage, BaseChatModel } = await import(pathToFileURL(join(dir, "sdk.mjs")).href);
class ScriptedModel extends BaseChatModel {
  _llmType() { return "scripted"; }
  bindTools() { return this; }
  async _generate() {
    const message = new AIMessage({ content: "", tool_calls: [
      { type: "tool_call", id: "w1", name: "writeFile", args: { path: "/etc/x" } },
      { type: "tool_call", id: "r1", name: "readFile", args: { path: "/tmp/y" } }] });
    return { generations: [{ text: "", message }] };
  }
}
const ran = [];
const schema = { type: "object", properties: { path: { type: "string" } } };
const writeFile = tool(async ({ path }) => { ran.push(`writeFile ${path}`); return "ok"; }, { name: "writeFile", description: "Writes.", schema });
const readFile = tool(async ({ path }) => { ran.push(`readFile ${path}`); return "text"; }, { name: "readFile", description: "Reads.", schema });
const agent = createAgent({ model: new ScriptedModel({}), tools: [writeFile, readFile],
  middleware: [humanInTheLoopMiddleware({ interruptOn: { writeFile: { allowedDecisions: ["approve", "edit", "reject"] } } })],
  checkpointer: new MemorySaver() });
const result = await agent.invoke({ messages: [{ role: "user", content: "write /etc/x, read /tmp/y" }] }, { configurable: { thread_id: "repro" } });
console.log("asked:", result.__interrupt__?.[0]?.value?.actionRequests?.map((r) => r.name));
console.log("ran before the answer:", ran);
const defect = result.__interrupt__?.length > 0 && !ran.includes("readFile /tmp/y");
console.log(defect ? "REPRODUCED: the call that needs no approval waits for the interrupt" : "not reproduced");
process.exit(defect ? 1 : 0);
