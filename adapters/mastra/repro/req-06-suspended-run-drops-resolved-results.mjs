// REQ-06 / PART-01: a turn returns a result for every call it resolved: a
// call that needs no approval and ran, a call whose approval was declined.
// Mastra runs a step's calls one by one, each an iteration of a workflow
// foreach, and writes their results into the run's messages (and its
// stream) in the step after the foreach (llmExecutionMappingStep). When a
// later call of the step suspends the run for approval, the foreach
// suspends and that step never runs: the results of the calls resolved
// before it stay in the run's snapshot. The suspended run's response
// (dbMessages), its toolResults, its stream and its memory thread hold such
// a call as a bare call (state "call"), without its result.
import { Agent, InMemoryStore, Mastra } from "./sdk.mjs";
import { MockMemory } from "@mastra/core/memory";
import { call, recordingTool, scriptedModel, show, text } from "./lib.mjs";

const memoryOption = { thread: "t", resource: "u" };

function agentWithMemory(replies, runs) {
  const storage = new InMemoryStore();
  const memory = new MockMemory({ storage });
  const mastra = new Mastra({ storage, logger: false });
  const tools = { purchase: recordingTool("purchase", true, runs), deleteFile: recordingTool("deleteFile", true, runs), search: recordingTool("search", false, runs) };
  mastra.addAgent(new Agent({ id: "repro", name: "repro", instructions: "", model: scriptedModel(replies), memory, tools }), "repro");
  return { agent: mastra.getAgent("repro"), memory };
}

// states maps each call of the messages to the state of its part.
const states = (messages) =>
  Object.fromEntries((messages ?? []).flatMap((m) => (m.content?.parts ?? []).filter((p) => p.type === "tool-invocation").map((p) => [p.toolInvocation.toolCallId, p.toolInvocation.state])));

// observe reads what a turn gives the application: the result's messages
// and toolResults (generate), or the stream's chunks, its messages and
// toolResults (stream), and the memory thread.
async function observe(mode, memory, start) {
  const chunks = [];
  let out;
  if (mode === "generate") out = await start();
  else {
    const s = await start();
    for await (const ch of s.fullStream) if (ch.payload?.toolCallId) chunks.push(`${ch.type} ${ch.payload.toolCallId}`);
    out = { finishReason: await s.finishReason, runId: s.runId, toolResults: await s.toolResults };
  }
  const thread = states((await memory.recall({ threadId: "t", resourceId: "u" })).messages);
  return { finishReason: out.finishReason, runId: out.runId, messages: out.messages ? show(states(out.messages)) : "(none: a stream)", toolResults: (out.toolResults ?? []).map((r) => r.payload?.toolCallId ?? r.toolCallId), chunks, thread };
}

let defect = false;
for (const mode of ["generate", "stream"]) {
  const ask = (agent, prompt) => () => (mode === "generate" ? agent.generate(prompt, { memory: memoryOption }) : agent.stream(prompt, { memory: memoryOption, eagerToolExecution: false }));

  // 1. s1 needs no approval and runs; p1 then suspends the run.
  const runs = [];
  const a = agentWithMemory([[call("s1", "search", { q: "headphones" }), call("p1", "purchase", { item: "headphones" })], [text("Bought.")]], runs);
  const t1 = await observe(mode, a.memory, ask(a.agent, "find and buy headphones"));
  console.log(`${mode}, s1 then p1: finish ${t1.finishReason}; ran ${show(runs)}; messages ${t1.messages}; toolResults ${show(t1.toolResults)}; stream ${show(t1.chunks)}; thread ${show(t1.thread)}`);
  if (t1.finishReason === "suspended" && runs.includes("s1") && t1.thread.s1 === "call" && !t1.toolResults.includes("s1")) defect = true;

  // 2. d1 and d2 need approval; d1 is declined, and the run suspends on d2.
  const b = agentWithMemory([[call("d1", "deleteFile", { path: "/a" }), call("d2", "deleteFile", { path: "/b" })], [text("Nothing deleted.")]], []);
  const first = await observe(mode, b.memory, ask(b.agent, "delete /a and /b"));
  const decline = () =>
    mode === "generate"
      ? b.agent.declineToolCallGenerate({ runId: first.runId, toolCallId: "d1", memory: memoryOption })
      : b.agent.declineToolCall({ runId: first.runId, toolCallId: "d1", memory: memoryOption, eagerToolExecution: false });
  const t2 = await observe(mode, b.memory, decline);
  console.log(`${mode}, d1 declined, d2 waits: finish ${t2.finishReason}; messages ${t2.messages}; toolResults ${show(t2.toolResults)}; stream ${show(t2.chunks)}; thread ${show(t2.thread)}`);
  if (t2.finishReason === "suspended" && t2.thread.d1 === "call" && !t2.chunks.some((c) => c.endsWith(" d1"))) defect = true;
}
if (defect) {
  console.log("DEFECT: a suspended run returns nothing of the calls it resolved before it suspended (a free call that ran, a declined call): no result in its messages, toolResults, stream or memory thread");
  process.exit(1);
}
console.log("OK");
