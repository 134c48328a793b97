// The agent role: one driver protocol turn is one call of a Mastra agent:
// generate() or stream() with the conversation, or, for a run that is
// suspended on a tool call waiting for approval, approveToolCall /
// declineToolCall (their generate forms in generate mode) with the run id.
//
// Mastra keeps a suspended run as a snapshot in its storage, found by the
// run id, and asks approval for one call at a time. The turn answer's
// `state` (the adapter declares resumeState) is {runId, waitsOn}: the run
// and the call it waits on (null when it waits on nothing); the snapshot
// itself stays in the adapter's Mastra storage (an InMemoryStore), as an
// application's stays in its own.

import { BoundedMap, CanonicalError, NotExpressible, askPolicy, executeTool, failedTurn, trailingAnswers } from "../../driverkit/index.mjs";
import { DECLINE_TEXT, toCanonicalMessages, toModelMessages } from "./messages.mjs";
import { canonicalModel } from "./canonical-model.mjs";

const MODEL_ID = "ack-simulated";
const AGENT_KEY = "ack";
// The request context key under which a turn's messages reach a
// requireApproval function (the application's own choice of key).
const REQUEST_MESSAGES = "messages";
const MAX_CONVERSATIONS = 1000;

/** Runner runs turns with one installed Mastra version. */
export class Runner {
  constructor({ sdk, eagerToolExecution = false }) {
    this.sdk = sdk;
    // Agent.stream() starts a call that needs no approval while the model
    // still streams (eagerToolExecution, on by default). When the run then
    // suspends on an earlier call of the step, nothing awaits that
    // execution: it may run before or after the turn's stream has ended
    // (FINDINGS.md, M2), so a turn could not be judged the same way twice.
    // The adapter turns it off unless asked (--eager-tool-execution), as
    // Mastra's documented option allows ("restore the previous scheduling,
    // where a tool waited for the whole model step to finish").
    this.eagerToolExecution = eagerToolExecution;
    this.mastra = new sdk.Mastra({ storage: new sdk.InMemoryStore(), logger: false });
    this.turns = 0;
    // conversation -> tool name -> executeURL (policyURL) of its latest
    // turn; the oldest conversations are forgotten past MAX_CONVERSATIONS.
    this.callbacks = new BoundedMap(MAX_CONVERSATIONS);
    this.policies = new BoundedMap(MAX_CONVERSATIONS);
  }

  model(endpoint) {
    const { openai, anthropic, APICallError } = this.sdk;
    switch (endpoint.api) {
      case "openai-chat":
        return openai.createOpenAI({ baseURL: endpoint.baseURL, apiKey: "sk-ack" }).chat(MODEL_ID);
      case "openai-responses":
        return openai.createOpenAI({ baseURL: endpoint.baseURL, apiKey: "sk-ack" }).responses(MODEL_ID);
      case "anthropic-messages":
        // @ai-sdk/anthropic keeps /v1 in its base URL.
        return anthropic.createAnthropic({ baseURL: endpoint.baseURL, apiKey: "sk-ant-ack" })(MODEL_ID);
      case "canonical":
        return canonicalModel(APICallError, endpoint.baseURL);
    }
    return undefined;
  }

  // tools are the turn's tools. Mastra resumes a suspended run with the
  // tools of the turn that started it (the run it holds in memory keeps
  // them), while the harness's callback URLs hold for one turn: so a
  // tool's execute reads its URL from the latest turn of its conversation,
  // as an application's tool reaches the same backend whichever request
  // resumes it.
  tools(req) {
    const { createTool } = this.sdk;
    const tools = {};
    if (req.toolkit !== "provided") return tools;
    const conversation = req.conversation ?? "";
    const urls = new Map((req.tools ?? []).map((t) => [t.name, t.executeURL]));
    this.callbacks.set(conversation, urls);
    this.policies.set(conversation, new Map((req.tools ?? []).map((t) => [t.name, t.policyURL])));
    for (const t of req.tools ?? []) {
      if (t.providerExecuted) throw new NotExpressible(`the hosted tool ${t.name}: this adapter gives Mastra no provider-run tools`);
      tools[t.name] = createTool({
        id: t.name,
        description: t.description ?? "",
        inputSchema: t.inputSchema ?? { type: "object" },
        requireApproval: t.approval === "dynamic" ? this.policy(t, conversation) : t.approval === "always",
        execute: (input, ctx) => {
          const executeURL = this.callbacks.get(conversation)?.get(t.name) ?? t.executeURL;
          return executeTool({ ...t, executeURL }, { toolCallId: ctx?.agent?.toolCallId ?? ctx?.toolCallId, input, signal: ctx?.abortSignal });
        },
      });
    }
    return tools;
  }

  // policy is a tool's requireApproval function (createTool's per-call
  // form, NeedsApprovalFn in tools/types.d.ts): Mastra gives it the call's
  // input and the request context, not the call's id, so the callback is
  // sent the input and the conversation (what the application put into the
  // request context: the turn's messages, REQUEST_MESSAGES) without a
  // toolCallId. A policy that throws is Mastra's to handle (it requires
  // approval then: resolveToolApprovalVerdict, REQ-05).
  policy(t, conversation) {
    return (input, ctx) => {
      const policyURL = this.policies.get(conversation)?.get(t.name) ?? t.policyURL;
      return askPolicy({ ...t, policyURL }, { input, messages: ctx?.requestContext?.[REQUEST_MESSAGES] ?? [] });
    };
  }

  agent(req) {
    const { Agent } = this.sdk;
    const model = this.model(req.model);
    // One agent per turn (its model and tools are the turn's), under the
    // same id (a suspended run's snapshot names the agent that owns it),
    // registered under a key of its own while the turn runs.
    const key = `${AGENT_KEY}-${++this.turns}`;
    const agent = new Agent({ id: AGENT_KEY, name: AGENT_KEY, instructions: "", model, tools: this.tools(req) });
    this.mastra.addAgent(agent, key);
    return { agent: this.mastra.getAgent(key), done: () => this.mastra.removeAgent(key) };
  }

  // turn runs one turn; the driver kit has checked the request (its model
  // API and denial policy are declared ones, its messages a list).
  async turn(req) {
    let registered;
    try {
      return await this.run(req, (r) => (registered = r));
    } finally {
      registered?.done();
    }
  }

  async run(req, register) {
    const { agent } = register(this.agent(req));
    const options = {};
    if (req.options?.maxSteps > 0) options.maxSteps = req.options.maxSteps;
    if (req.options?.concurrency > 0) options.toolCallConcurrency = req.options.concurrency;
    options.requestContext = new this.sdk.RequestContext([[REQUEST_MESSAGES, req.messages]]);
    const stream = req.mode === "stream";
    if (stream) options.eagerToolExecution = this.eagerToolExecution;

    let call;
    // A state names the run of the last turn and the call it waits on, if
    // any; a run that waits on nothing is not resumed.
    const resumed = typeof req.state?.waitsOn === "string";
    if (resumed) {
      const a = this.answer(req.state, req.messages);
      // The answer's id is the call id Mastra's approveToolCall and
      // declineToolCall take: an answer naming another call than the one
      // the run waits on (a stray answer) goes to Mastra as it came, which
      // decides what it does with it (PRE-04).
      const args = { ...options, runId: req.state.runId, toolCallId: a.approvalId };
      if (!a.approved && a.reason !== undefined) args.reason = a.reason;
      call = stream
        ? () => (a.approved ? agent.approveToolCall(args) : agent.declineToolCall(args))
        : () => (a.approved ? agent.approveToolCallGenerate(args) : agent.declineToolCallGenerate(args));
    } else {
      const messages = toModelMessages(req.messages);
      call = stream ? () => agent.stream(messages, options) : () => agent.generate(messages, options);
    }

    let out;
    const events = [];
    try {
      if (stream) {
        const s = await call();
        for await (const ch of s.fullStream) events.push(...this.events(ch));
        out = { finishReason: await s.finishReason, response: await s.response, runId: s.runId, suspendPayload: await s.suspendPayload, error: s.error };
      } else {
        out = await call();
      }
    } catch (e) {
      if (e instanceof CanonicalError || e instanceof NotExpressible) throw e;
      return failedTurn(req, this.turnError(e), resultEvents(events, new Map()));
    }
    if (out.error) return failedTurn(req, this.turnError(out.error), resultEvents(events, new Map()));
    return this.answerOf(req, out, events);
  }

  // answer reads the one answer of a turn that resumes a suspended run: the
  // messages after the last assistant message must hold exactly one
  // answer, which names its call (approveToolCall / declineToolCall take a
  // toolCallId: one that is not the call the run waits on is a stray
  // answer, passed on as it came); anything else has no form in Mastra's
  // approveToolCall / declineToolCall.
  answer(state, messages) {
    const answers = trailingAnswers(messages, {
      beside: "the answer to a suspended run",
      only: "Mastra resumes it with an approval or a decline only",
      answerIs: "Mastra's answer is approveToolCall or declineToolCall of the suspended run",
    });
    if (answers.length !== 1) throw new NotExpressible(`${answers.length} answers to the suspended run: Mastra takes one approval or decline per resume`);
    return answers[0].part;
  }

  // events maps one chunk of Mastra's fullStream to canonical events.
  events(ch) {
    const p = ch.payload ?? {};
    switch (ch.type) {
      case "step-start":
        return [{ type: "start-step" }];
      case "text-delta":
        return [{ type: "text-delta", text: p.text ?? "" }];
      case "tool-call":
        return [{ type: "tool-call", toolCallId: p.toolCallId, toolName: p.toolName, input: p.args ?? null }];
      case "tool-call-approval":
        return [{ type: "tool-approval-request", approvalId: p.toolCallId, toolCallId: p.toolCallId }];
      case "tool-result":
      case "tool-error":
      case "tool-output-denied":
        // Resolved to the result part of the turn's messages (resultEvents).
        return [{ type: "result-of", chunk: ch.type, payload: p }];
      case "step-finish":
        return [{ type: "finish-step", finishReason: p.stepResult?.reason }];
      case "finish":
        return [{ type: "finish", finishReason: p.stepResult?.reason }];
    }
    return [];
  }

  turnError(e) {
    const { APICallError } = this.sdk;
    let code = "Other";
    if (APICallError.isInstance?.(e) || e?.name === "AI_APICallError") code = "Model";
    // Mastra's own refusal of a resume whose run is not suspended (it
    // completed, failed, or never waited): the answer names a run the SDK
    // does not hold waiting, an answer it refuses.
    // Likewise its refusal of an answer naming a call the run does not wait
    // on (AGENT_RESUME_TOOL_CALL_NOT_SUSPENDED: a stray answer, an empty id).
    else if (e?.id === "AGENT_RESUME_NO_SNAPSHOT_FOUND" || e?.id === "AGENT_RESUME_TOOL_CALL_NOT_SUSPENDED") code = "InvalidApproval";
    let message = e instanceof Error ? e.message : typeof e === "string" ? e : JSON.stringify(e);
    if (e?.responseBody) message += ` (status ${e.statusCode}: ${e.responseBody})`;
    return { code, message, sdkError: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
  }

  // answerOf is the turn answer: the messages the run added
  // (newMessages), an approval request for the call a suspended run waits
  // on, the finish reason, the state.
  answerOf(req, out, events) {
    // A finished run's response holds its messages; a suspended one's only
    // Mastra's own stored messages, which its MessageList turns into the
    // same model messages.
    let model = out.response?.messages;
    if (!model && out.response?.dbMessages) {
      const list = new this.sdk.MessageList();
      list.add(out.response.dbMessages, "response");
      model = list.get.all.aiV5.model();
    }
    const messages = newMessages(req.messages, toCanonicalMessages(model ?? []));
    const suspended = out.finishReason === "suspended";
    const answer = { messages, finishReason: suspended ? "tool-calls" : out.finishReason ?? "stop" };
    if (suspended) {
      const id = out.suspendPayload?.toolCallId;
      if (typeof id !== "string") throw new CanonicalError("a suspended run without the call it waits on");
      const request = { type: "tool-approval-request", approvalId: id, toolCallId: id };
      const holder = messages.find((m) => m.role === "assistant" && Array.isArray(m.content) && m.content.some((p) => p.type === "tool-call" && p.toolCallId === id));
      if (holder) holder.content.push(request);
      else messages.push({ role: "assistant", content: [request] });
    }
    answer.state = { runId: out.runId ?? null, waitsOn: suspended ? out.suspendPayload.toolCallId : null };
    if (req.mode === "stream") {
      const results = new Map();
      for (const m of messages) if (Array.isArray(m.content)) for (const p of m.content) if (p.type === "tool-result") results.set(p.toolCallId, p);
      answer.events = resultEvents(events, results);
    }
    return answer;
  }
}

/**
 * resultEvents turns the result chunks of a stream into result events: the
 * result part the turn's messages hold for the call (the same result, typed
 * as the messages type it), or, for a turn that failed, the result as the
 * chunk carries it (a result json or text, an error or a decline text).
 */
function resultEvents(events, results) {
  return events.map((ev) => {
    if (ev.type !== "result-of") return ev;
    const p = ev.payload;
    const held = results.get(p.toolCallId);
    if (held) return { ...held };
    let output;
    if (ev.chunk === "tool-result") output = typeof p.result === "string" ? { type: "text", value: p.result } : { type: "json", value: p.result ?? null };
    else if (ev.chunk === "tool-error") output = { type: "error-text", value: p.error?.message ?? String(p.error) };
    else output = { type: "text", value: p.approval?.reason ?? DECLINE_TEXT };
    return { type: "tool-result", toolCallId: p.toolCallId, toolName: p.toolName, output };
  });
}

const flat = (messages) =>
  messages.flatMap((m) =>
    (typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content)
      .filter((p) => p.type !== "tool-approval-request" && p.type !== "tool-approval-response")
      .map((part) => ({ role: m.role, part })));

/**
 * newMessages is what a run added to the conversation. Mastra's response
 * starts with what the conversation already holds when the run resumed a
 * suspended one (the calls of the turns before) or when the conversation
 * ended with an assistant message (Mastra's message list merges the new
 * answer into it): the longest stretch at the start of the response that
 * repeats the end of the conversation (approval parts aside) is left out,
 * and what remains is laid out as messages again.
 */
function newMessages(history, response) {
  const h = flat(history);
  const r = flat(response);
  const same = (a, b) => a.role === b.role && JSON.stringify(a.part) === JSON.stringify(b.part);
  let k = Math.min(h.length, r.length);
  for (; k > 0; k--) {
    let ok = true;
    for (let i = 0; i < k && ok; i++) ok = same(r[i], h[h.length - k + i]);
    if (ok) break;
  }
  const out = [];
  for (const { role, part } of r.slice(k)) {
    const last = out.at(-1);
    if (last?.role === role) last.content.push(part);
    else out.push({ role, content: [part] });
  }
  return out;
}
