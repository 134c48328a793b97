// LangChain.js alone (no kit): a run that reaches modelCallLimitMiddleware's
// runLimit with exitBehavior "end" leaves the run's count in the thread, so
// every later run of the thread ends at once, before any model call.
//
//   versions/1.5.14/node_modules/.bin/node repro/step-limit-blocks-the-thread.mjs versions/1.5.14
//
// The limit's jump to "end" from beforeModel goes straight to END
// (dist/agents/ReactAgent.js:549, the before-model router), not to the
// after-agent node that resets runModelCallCount
// (dist/agents/middleware/modelCallLimit.js:153).
import { resolve, join } from "node:path";
import { pathToFileURL } from "node:url";

const dir = resolve(process.argv[2] ?? "versions/1.5.14");
const { createAgent, modelCallLimitMiddleware, tool, MemorySaver, AIMessage, BaseChatModel } = await import(pathToFileURL(join(dir, "sdk.mjs")).href);
let calls = 0;
class ScriptedModel extends BaseChatModel {
  _llmType() { return "scripted"; }
  bindTools() { return this; }
  async _generate() {
    calls++;
    const message = calls <= 2
      ? new AIMessage({ content: "", tool_calls: [{ type: "tool_call", id: `l${calls}`, name: "lookup", args: {} }] })
      : new AIMessage("summary");
    return { generations: [{ text: "", message }] };
  }
}
const lookup = tool(async () => "ok", { name: "lookup", description: "Looks up.", schema: { type: "object", properties: {} } });
const agent = createAgent({ model: new ScriptedModel({}), tools: [lookup], middleware: [modelCallLimitMiddleware({ runLimit: 2, exitBehavior: "end" })], checkpointer: new MemorySaver() });
const config = { configurable: { thread_id: "repro" } };
await agent.invoke({ messages: [{ role: "user", content: "look up one and two" }] }, config);
const before = calls;
const second = await agent.invoke({ messages: [{ role: "user", content: "summarise" }] }, config);
console.log("model calls in run 1:", before, "in run 2:", calls - before);
console.log("run 2 ended with:", JSON.stringify(second.messages.at(-1).content));
const defect = calls === before;
console.log(defect ? "REPRODUCED: the second run made no model call: the first run's limit still holds" : "not reproduced");
process.exit(defect ? 1 : 0);
