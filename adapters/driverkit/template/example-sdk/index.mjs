// The example SDK: a small agent runtime with human-in-the-loop tool
// approval, standing in for your SDK so that the skeleton runs green from
// its first minute. Replace it with your SDK (and delete this folder); the
// adapter in ../src is where your SDK's calls go.
//
// One turn (agent.generate or agent.stream) does, in order:
//
//   1. Pre-resolution: it reads the answers in the history (anywhere in
//      it), matches each to the approval request it issued (signed, so a
//      forged or altered request is refused), runs the approved calls once
//      (a ledger refuses to run a replayed approval again), gives the
//      denied ones a denial result, and puts the results in one tool
//      message before it calls the model. It refuses, before anything
//      runs: answers without a toolkit, an approved call of a tool the
//      toolkit lacks, a call with neither a result nor an answer.
//   2. The step loop: it calls the model with a prompt in which every call
//      has its result right after it and approval parts are left out; a
//      call whose tool needs approval (always, or a policy that says so or
//      fails) gets a signed approval request and ends the turn; the others
//      run, and the loop goes on, up to the step limit.

import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";

import { AgentError } from "./errors.mjs";
import { checkInput, checkMessages, indexOf, promptOf } from "./history.mjs";

export { AgentError };

/**
 * Ledger remembers the outputs of the approvals that ran, so that one sent
 * again (a replay, a duplicate) never runs its tool twice, even while the
 * first run is still going. It forgets the oldest past max.
 */
export class Ledger {
  constructor(max = 10_000) {
    this.max = max;
    this.runs = new Map();
  }

  /** once runs fn for approvalId the first time, and answers every time with that run's output. */
  once(approvalId, fn) {
    if (!this.runs.has(approvalId)) {
      this.runs.set(approvalId, fn());
      while (this.runs.size > this.max) this.runs.delete(this.runs.keys().next().value);
    }
    return this.runs.get(approvalId);
  }
}

// stableJSON is a value's JSON with its keys sorted, so that a signature
// does not depend on the order of an input's keys.
function stableJSON(v) {
  if (Array.isArray(v)) return `[${v.map(stableJSON).join(",")}]`;
  if (v !== null && typeof v === "object") return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${stableJSON(v[k])}`).join(",")}}`;
  return JSON.stringify(v ?? null);
}

/** DENIED_TEXT is what a denial without a reason says, where a text is wanted. */
export const DENIED_TEXT = "The user denied this tool call.";

/**
 * Agent runs turns with a model and a toolkit.
 *
 *   model        {generate({messages, tools}) -> {content, finishReason},
 *                 stream({messages, tools}) -> async iterable of the
 *                 model's events: text-delta, tool-call, finish}
 *   tools        the toolkit, or undefined for none: a list of {name,
 *                description, inputSchema, needsApproval (a boolean, or
 *                ({toolCallId, input, messages}) => boolean, async; a
 *                policy that throws needs approval), execute(input,
 *                {toolCallId}) -> output, async}
 *   maxSteps     the model calls of a turn (5)
 *   concurrency  how many tools run at once (0: no bound)
 *   secret       the key approval requests are signed with
 *   ledger       the Ledger of the approvals that ran
 */
export class Agent {
  constructor({ model, tools, maxSteps = 5, concurrency = 0, secret = randomUUID(), ledger = new Ledger() }) {
    Object.assign(this, { model, tools, maxSteps, concurrency, secret, ledger });
    this.byName = new Map((tools ?? []).map((t) => [t.name, t]));
  }

  /** generate runs a turn: {messages (what it added), finishReason}. */
  async generate(messages) {
    return new Turn(this, messages, undefined).run();
  }

  /**
   * stream runs a turn in stream mode: {events, result}. events yields the
   * SDK's stream events (step-start, text, call, approval, result, step-end,
   * done, and error last on a failed turn); result is generate's answer.
   */
  stream(messages) {
    const queue = [];
    let wake;
    let ended = false;
    const push = (ev) => {
      queue.push(ev);
      wake?.();
    };
    const result = (async () => new Turn(this, messages, push).run())();
    result.then(
      () => { ended = true; wake?.(); },
      (e) => { push({ type: "error", error: e }); ended = true; wake?.(); },
    );
    const events = (async function* () {
      for (;;) {
        if (queue.length > 0) {
          yield queue.shift();
          continue;
        }
        if (ended) return;
        await new Promise((resolve) => (wake = resolve));
        wake = undefined;
      }
    })();
    return { events, result };
  }

  sign(approvalId, call) {
    return createHmac("sha256", this.secret).update(`${approvalId}\n${call.toolCallId}\n${call.toolName}\n${stableJSON(call.input)}`).digest("base64url");
  }

  verify(request, call) {
    if (typeof request.signature !== "string") return false;
    const want = Buffer.from(this.sign(request.approvalId, call));
    const got = Buffer.from(request.signature);
    return got.length === want.length && timingSafeEqual(got, want);
  }
}

// Turn is one turn's work.
class Turn {
  constructor(agent, messages, emit) {
    this.agent = agent;
    this.emit = emit ?? (() => {});
    this.stream = Boolean(emit);
    checkMessages(messages);
    this.history = structuredClone(messages);
    this.added = [];
  }

  add(message) {
    this.history.push(message);
    this.added.push(message);
  }

  async run() {
    await this.preResolve();
    let finishReason = "stop";
    for (let step = 0; step < this.agent.maxSteps; step++) {
      this.emit({ type: "step-start" });
      const prompt = promptOf(this.history);
      const reply = await this.callModel(prompt);
      const { pending, ran } = await this.handleCalls(prompt, reply);
      finishReason = pending > 0 ? "tool-calls" : reply.finishReason || "stop";
      this.emit({ type: "step-end", finishReason });
      if (pending > 0 || !ran) break;
    }
    this.emit({ type: "done", finishReason });
    return { messages: this.added, finishReason };
  }

  // preResolve resolves the answers of the history before the model is called.
  async preResolve() {
    const ix = indexOf(this.history);
    const seen = new Map();
    for (const [i, m] of this.history.entries()) {
      if (typeof m.content === "string") continue;
      for (const p of m.content) {
        if (p.type !== "tool-call") continue;
        if (seen.has(p.toolCallId)) throw new AgentError("invalid-messages", `tool call id ${p.toolCallId} is used by two calls (messages[${seen.get(p.toolCallId)}] and messages[${i}])`);
        seen.set(p.toolCallId, i);
      }
    }
    for (const [id, r] of ix.requests) {
      const call = ix.calls.get(r.part.toolCallId);
      if (call && call.message > r.message) throw new AgentError("invalid-messages", `approval request ${id} (messages[${r.message}]) comes before its call (messages[${call.message}])`);
    }
    // One decision per call, from its first answer; a conflicting second
    // answer denies. Answers to no request, to a call with a result, or to
    // a call the provider runs are not acted on.
    const decisions = new Map();
    for (const { part: answer } of ix.responses) {
      const request = ix.requests.get(answer.approvalId);
      const call = request && ix.calls.get(request.part.toolCallId)?.part;
      if (!call || call.providerExecuted || ix.results.has(call.toolCallId)) continue;
      const d = decisions.get(call.toolCallId);
      if (!d) decisions.set(call.toolCallId, { request: request.part, call, approved: answer.approved, reason: answer.reason });
      else if (d.approved !== answer.approved) Object.assign(d, { approved: false, reason: (d.approved ? answer.reason : d.reason) || "conflicting answers" });
    }
    const order = [...decisions.values()].sort((a, b) => ix.callOrder.indexOf(a.call.toolCallId) - ix.callOrder.indexOf(b.call.toolCallId));
    if (order.length > 0 && !this.agent.tools?.length) throw new AgentError("toolkit-required", `a toolkit is required to resolve the answered calls of ${order.map((d) => d.call.toolName).join(", ")}`);
    for (const d of order) {
      if (d.approved && !this.agent.verify(d.request, d.call)) throw new AgentError("invalid-approval", `approval ${d.request.approvalId} of call ${d.call.toolCallId} was not issued by this agent, or its call changed since`);
      if (d.approved && !this.agent.byName.has(d.call.toolName)) throw new AgentError("tool-not-found", `tool ${d.call.toolName} is not in the toolkit`);
    }
    const missing = ix.callOrder.filter((id) => !ix.calls.get(id).part.providerExecuted && !ix.results.has(id) && !decisions.has(id));
    if (missing.length > 0) throw new AgentError("missing-results", `calls without a result or an answer: ${missing.join(", ")}`);
    // Run the approved calls (each approval once, whatever replays it), deny the others.
    const results = await this.runAll(order.map((d) => async () => {
      if (!d.approved) return { type: "execution-denied", ...(d.reason !== undefined ? { reason: d.reason } : {}) };
      return this.agent.ledger.once(d.request.approvalId, () => this.execute(this.agent.byName.get(d.call.toolName), d.call));
    }));
    if (results.length === 0) return;
    const message = { role: "tool", content: order.map((d, k) => ({ type: "tool-result", toolCallId: d.call.toolCallId, toolName: d.call.toolName, output: results[k] })) };
    this.add(message);
    for (const part of message.content) this.emit({ type: "result", part });
  }

  // callModel calls the model with the prompt; in stream mode the text and
  // the calls are streamed as they come.
  async callModel(prompt) {
    const tools = (this.agent.tools ?? []).map((t) => ({ name: t.name, description: t.description ?? "", ...(t.inputSchema ? { inputSchema: t.inputSchema } : {}) }));
    let reply;
    try {
      if (!this.stream) {
        reply = await this.agent.model.generate({ messages: prompt, tools });
      } else {
        reply = { content: [], finishReason: undefined };
        for await (const ev of this.agent.model.stream({ messages: prompt, tools })) {
          if (ev.type === "text-delta") {
            const last = reply.content.at(-1);
            if (last?.type === "text") last.text += ev.text;
            else reply.content.push({ type: "text", text: ev.text });
            this.emit({ type: "text", delta: ev.text });
          } else if (ev.type === "tool-call") {
            reply.content.push(ev);
            this.emit({ type: "call", part: ev });
          } else if (ev.type === "finish") {
            reply.finishReason = ev.finishReason;
          }
        }
      }
    } catch (e) {
      throw new AgentError("model", `the model call failed: ${e.message}`, { cause: e });
    }
    return reply;
  }

  // handleCalls adds the model's message with an approval request for each
  // call that needs one, runs the others, and adds their results.
  async handleCalls(prompt, reply) {
    const assistant = { role: "assistant", content: [...reply.content] };
    const local = [];
    const requests = [];
    for (const call of reply.content) {
      if (call.type !== "tool-call" || call.providerExecuted) continue;
      const tool = this.agent.byName.get(call.toolName);
      const planned = { call, tool };
      local.push(planned);
      if (!tool) planned.output = { type: "error-text", value: `Error: tool ${JSON.stringify(call.toolName)} is not in the toolkit.` };
      else if (checkInput(tool.inputSchema, call.input)) planned.output = { type: "error-text", value: `Error: invalid input for tool ${JSON.stringify(call.toolName)}: ${checkInput(tool.inputSchema, call.input)}` };
      else if (await this.needsApproval(tool, call, prompt)) {
        const approvalId = randomUUID();
        requests.push({ type: "tool-approval-request", approvalId, toolCallId: call.toolCallId, signature: this.agent.sign(approvalId, call) });
        planned.pending = true;
      }
    }
    assistant.content.push(...requests);
    this.add(assistant);
    for (const part of requests) this.emit({ type: "approval", part });
    const toRun = local.filter((p) => !p.pending && !p.output);
    const outputs = await this.runAll(toRun.map((p) => () => this.execute(p.tool, p.call)));
    toRun.forEach((p, k) => (p.output = outputs[k]));
    const results = local.filter((p) => p.output).map((p) => ({ type: "tool-result", toolCallId: p.call.toolCallId, toolName: p.call.toolName, output: p.output }));
    if (results.length > 0) {
      this.add({ role: "tool", content: results });
      for (const part of results) this.emit({ type: "result", part });
    }
    return { pending: requests.length, ran: results.length > 0 };
  }

  // needsApproval evaluates a tool's approval setting for a call; a policy
  // that fails needs approval (it fails closed).
  async needsApproval(tool, call, prompt) {
    if (typeof tool.needsApproval !== "function") return tool.needsApproval === true;
    try {
      return (await tool.needsApproval({ toolCallId: call.toolCallId, input: call.input, messages: prompt })) !== false;
    } catch {
      return true;
    }
  }

  // execute runs a tool once: its output as a json result, or its failure
  // as an error-text result.
  async execute(tool, call) {
    try {
      const value = await tool.execute(call.input, { toolCallId: call.toolCallId });
      return { type: "json", value: value ?? null };
    } catch (e) {
      return { type: "error-text", value: `Error: ${e?.message ?? e}` };
    }
  }

  // runAll runs jobs, at most the agent's concurrency at once, and answers
  // their outputs in order.
  async runAll(jobs) {
    const outputs = new Array(jobs.length);
    const limit = this.agent.concurrency > 0 ? this.agent.concurrency : jobs.length;
    let next = 0;
    const worker = async () => {
      while (next < jobs.length) {
        const k = next++;
        outputs[k] = await jobs[k]();
      }
    };
    await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, worker));
    return outputs;
  }
}
