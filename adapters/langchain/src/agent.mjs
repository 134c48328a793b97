// The agent role: one driver protocol turn is one invoke() or stream() of
// an agent of createAgent with humanInTheLoopMiddleware and a MemorySaver
// checkpointer, as LangChain's human-in-the-loop docs tell applications to
// build one. The thread is the conversation; a step whose calls need
// approval ends in one interrupt() holding every call of the step that
// waits (its actionRequests), and the next turn resumes it with
// Command({resume: {decisions}}), one decision per request, in the order
// asked.
//
// The run state (the thread and the checkpoint the turn ended at) travels
// in the turn answer's `state` (the adapter declares resumeState): the
// next turn resumes from that checkpoint, so a replayed turn resumes from
// the old checkpoint, as an application's retry of the same request would.

import { ModelHTTPError, NotExpressible, PolicyFailed, askPolicy, executeTool, failedTurn, trailingAnswers, turnError as kitTurnError, withFinish } from "../../driverkit/index.mjs";
import { textOf, toCanonical, toLangChain } from "./messages.mjs";
import { canonicalModel } from "./canonical-model.mjs";

const MODEL_ID = "ack-simulated";

/** turnError maps an error the SDK threw to a turn error. */
export function turnError(e) {
  let code = "Other";
  // A policy that failed (its callback failed or was dropped) is the
  // runtime failing, not the model.
  if (e instanceof PolicyFailed) return { code, message: e.message, sdkError: `${e.constructor.name}: ${e.message}` };
  // The provider clients' errors (openai, @anthropic-ai/sdk) carry the HTTP status; so does the canonical model's.
  if (e instanceof ModelHTTPError || typeof e?.status === "number" || /Connection error|fetch failed/i.test(e?.message ?? "")) code = "Model";
  else if (/^Invalid (HITLResponse|edited action)|Number of human decisions|Unexpected human decision/.test(e?.message ?? "")) code = "InvalidApproval";
  // The tools node's own refusal of a call to a tool the agent does not
  // have (1.0.x: dist/agents/nodes/ToolNode.js l.161, l.205; later
  // versions answer it with an error ToolMessage instead).
  else if (/^Tool ".*" not found\.$/.test(e?.message ?? "")) code = "ToolNotFound";
  return kitTurnError(code, e);
}

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

// SUPERSTEPS_PER_STEP is what one step of the agent (a model call and the
// tools it called) costs in LangGraph's recursion limit: the graph of
// createAgent runs the model node (model_request), then one node per
// afterModel hook (the human-in-the-loop middleware's, the only middleware
// with a hook here), then the tools node, each a superstep of its own
// (langchain dist/agents/ReactAgent.js l.144, l.161, l.178).
const SUPERSTEPS_PER_STEP = 3;

/** Runner runs turns with one installed SDK version. */
export class Runner {
  // stepLimit is how a turn's maxSteps reaches the agent: "recursion"
  // (LangGraph's recursionLimit, SUPERSTEPS_PER_STEP per step; the run
  // ends with GraphRecursionError and its state is read from the
  // checkpointer) or "middleware" (modelCallLimitMiddleware's runLimit,
  // exitBehavior "end": see FINDINGS L4 of the certification).
  // dynamicPolicy: the version's interruptOn config has the `when`
  // predicate.
  constructor({ sdk, stepLimit = "recursion", dynamicPolicy = true }) {
    this.sdk = sdk;
    this.stepLimit = stepLimit;
    this.dynamicPolicy = dynamicPolicy;
    // One checkpointer for the adapter's life, keyed by thread (the conversation).
    this.checkpointer = new sdk.MemorySaver();
  }

  model(endpoint) {
    const { ChatOpenAI, ChatAnthropic } = this.sdk;
    switch (endpoint.api) {
      case "openai-chat":
      case "openai-responses":
        return new ChatOpenAI({
          model: MODEL_ID, apiKey: "sk-ack", maxRetries: 0,
          useResponsesApi: endpoint.api === "openai-responses",
          configuration: { baseURL: endpoint.baseURL },
        });
      case "anthropic-messages":
        // The Anthropic SDK appends /v1/messages to its base URL itself.
        return new ChatAnthropic({
          model: MODEL_ID, apiKey: "sk-ack", maxRetries: 0,
          anthropicApiUrl: endpoint.baseURL.replace(/\/v1\/?$/, ""),
        });
      case "canonical":
        return canonicalModel(this.sdk, endpoint.baseURL);
    }
    return undefined;
  }

  tools(req) {
    const { tool } = this.sdk;
    if (req.toolkit !== "provided") return [];
    return (req.tools ?? []).map((t) => {
      if (t.providerExecuted) throw new NotExpressible(`the provider-run tool ${t.name}: createAgent's tools are run by the agent; LangChain's agent has no approval for a tool the provider runs`);
      return tool(
        async (input, config) => {
          const output = await executeTool(t, { toolCallId: config?.toolCall?.id, input, signal: config?.signal });
          return typeof output === "string" ? output : JSON.stringify(output ?? null);
        },
        { name: t.name, description: t.description || t.name, schema: t.inputSchema ?? { type: "object", properties: {} } },
      );
    });
  }

  // interruptOn is the middleware's configuration: a tool that always needs
  // approval allows every decision; a dynamic one asks the harness with the
  // middleware's `when` predicate; one that never does is left out (its
  // calls are auto-approved and run).
  interruptOn(req, messagesOf) {
    const on = {};
    if (req.toolkit !== "provided") return on;
    for (const t of req.tools ?? []) {
      if (t.approval === "always") on[t.name] = { allowedDecisions: ["approve", "edit", "reject"] };
      if (t.approval === "dynamic") {
        if (!this.dynamicPolicy) throw new NotExpressible(`the dynamic policy of ${t.name}: this version's interruptOn config has no \`when\` predicate`);
        on[t.name] = {
          allowedDecisions: ["approve", "edit", "reject"],
          // A failure throws the driver kit's PolicyFailed (turnError).
          when: ({ toolCall, state }) => askPolicy(t, { toolCallId: toolCall.id, input: toolCall.args, messages: messagesOf(state) }),
        };
      }
    }
    return on;
  }

  // turn runs one turn; the driver kit has checked the request (its model
  // API and denial policy are declared ones, its messages a list).
  async turn(req) {
    const { createAgent, humanInTheLoopMiddleware, modelCallLimitMiddleware, Command } = this.sdk;
    const model = this.model(req.model);

    const middleware = [humanInTheLoopMiddleware({ interruptOn: this.interruptOn(req, (s) => toCanonical(s?.messages ?? [])) })];
    const maxSteps = req.options?.maxSteps > 0 ? req.options.maxSteps : 0;
    if (maxSteps > 0 && this.stepLimit === "middleware") middleware.push(modelCallLimitMiddleware({ runLimit: maxSteps, exitBehavior: "end" }));
    const agent = createAgent({ model, tools: this.tools(req), middleware, checkpointer: this.checkpointer });

    const thread = String(req.conversation ?? "");
    let configurable = { thread_id: thread };
    let input;
    if (req.state == null) {
      // The first turn of a conversation starts its thread from nothing.
      await this.checkpointer.deleteThread(thread);
      input = { messages: toLangChain(this.sdk, req.messages) };
    } else {
      const s = req.state;
      if (!isObject(s) || s.thread !== thread || typeof s.checkpoint !== "string") {
        return { error: { code: "InvalidApproval", message: `state: want {thread: ${JSON.stringify(thread)}, checkpoint}, got ${JSON.stringify(s)}` } };
      }
      configurable = { thread_id: thread, checkpoint_id: s.checkpoint };
      const snapshot = await agent.graph.getState({ configurable });
      if (!snapshot?.config?.configurable?.checkpoint_id) {
        return { error: { code: "InvalidApproval", message: `state: the thread has no checkpoint ${s.checkpoint}` } };
      }
      const pending = snapshot.tasks.flatMap((t) => t.interrupts ?? []);
      if (pending.length > 0) {
        input = new Command({ resume: this.decisions(pending, snapshot.values.messages, req.messages) });
      } else {
        input = { messages: this.newMessages(req.messages) };
      }
    }
    // Without a step limit the agent's loop runs until the model stops
    // calling tools (the default recursion limit, 25 supersteps, would end
    // a long turn early; the adapter lifts it as LangChain's
    // agent.withConfig example does: ReactAgent.js l.331). With one, a
    // step costs SUPERSTEPS_PER_STEP supersteps: the run makes at most
    // maxSteps model calls, runs the tools of each, and ends with
    // GraphRecursionError before the next model call.
    const byRecursion = maxSteps > 0 && this.stepLimit === "recursion";
    const config = { configurable, recursionLimit: byRecursion ? SUPERSTEPS_PER_STEP * maxSteps : 1000 };
    // The turn answers what it added: not the thread's messages before it,
    // nor the user's messages it was given.
    const given = Array.isArray(input?.messages) ? input.messages.length : 0;
    const prior = (await agent.graph.getState({ configurable })).values?.messages ?? [];
    const before = prior.length + given;

    const events = [];
    let step = { open: false, finish: "stop" };
    // limited: the run reached its step limit. LangGraph raises
    // GraphRecursionError (pregel/index.js l.1337) after checkpointing
    // every superstep that ran (pregel/loop.js, the tick's finally), so
    // the turn's answer is the thread's state, read from the checkpointer
    // as after any run.
    let limited = false;
    const reachedLimit = (e) => byRecursion && e instanceof this.sdk.GraphRecursionError;
    try {
      if (req.mode === "stream") {
        step = await this.stream(agent, input, config, events, reachedLimit, prior);
        limited = step.limited;
      } else {
        await agent.invoke(input, config);
      }
    } catch (e) {
      if (e instanceof NotExpressible) throw e;
      if (reachedLimit(e)) {
        limited = true;
      } else {
        return failedTurn(req, turnError(e), events);
      }
    }
    const after = await agent.graph.getState({ configurable: { thread_id: thread } });
    const answer = this.answerOf(after, before, limited);
    if (req.mode === "stream") {
      for (const r of answer.requests) events.push(r);
      if (step.open) events.push({ type: "finish-step", finishReason: step.finish });
      answer.events = withFinish(events, answer.finishReason);
    }
    delete answer.requests;
    return answer;
  }

  // newMessages is what a turn adds to a thread whose run finished: the
  // user's messages after the last message of the agent. The thread holds
  // the rest (LangChain's docs invoke an agent with the new message and the
  // thread id); an answer has no run to resume.
  newMessages(messages) {
    let k = messages.length;
    while (k > 0 && (messages[k - 1]?.role === "user" || messages[k - 1]?.role === "system")) k--;
    for (let i = k; i < messages.length; i++) {
      if (messages[i]?.role === "tool") throw new NotExpressible(`messages[${i}]: answers to a run that waits for none: the thread's run finished`);
    }
    if (k === messages.length) {
      const m = messages.at(-1);
      const answers = m?.role === "tool" && Array.isArray(m.content) && m.content.some((p) => p?.type === "tool-approval-response");
      throw new NotExpressible(answers
        ? `messages[${messages.length - 1}]: answers to a thread whose run waits for none (the checkpoint has no interrupt): LangChain's answers are Command({resume}) to an interrupt`
        : "a turn with no new user message for a thread whose run finished");
    }
    return toLangChain(this.sdk, messages.slice(k), k);
  }

  // decisions maps the turn's answers onto the interrupt's action requests:
  // one decision per request, in the order the middleware asked (its
  // actionRequests follow the tool calls of the step's AIMessage). The
  // approval id of a request is its tool call's id. The answers are the
  // messages after the last assistant message.
  decisions(interrupts, lcMessages, messages) {
    if (interrupts.length !== 1) throw new NotExpressible(`${interrupts.length} interrupts pending: the adapter resumes the middleware's one interrupt per step`);
    const requests = this.requestsOf(interrupts[0], lcMessages);
    const byId = new Map();
    const answers = trailingAnswers(messages, {
      beside: "answers to an interrupted run",
      only: "Command({resume}) takes the decisions only",
      answerIs: "a decision is approve, edit or reject of one action request",
    });
    for (const { part: p, where } of answers) {
      if (!requests.some((r) => r.approvalId === p.approvalId)) throw new NotExpressible(`${where}: the answer to ${JSON.stringify(p.approvalId)} matches none of the interrupt's action requests`);
      if (byId.has(p.approvalId)) throw new NotExpressible(`${where}: a second answer to ${JSON.stringify(p.approvalId)}: the middleware takes one decision per action request`);
      byId.set(p.approvalId, p);
    }
    const missing = requests.filter((r) => !byId.has(r.approvalId));
    if (missing.length > 0) {
      throw new NotExpressible(`no answer to ${missing.map((r) => r.approvalId).join(", ")}: the middleware takes every decision of a step together (Command({resume: {decisions}}), one per action request, in order)`);
    }
    const decisions = requests.map((r) => {
      const p = byId.get(r.approvalId);
      if (p.editedInput !== undefined) {
        if (!p.approved) throw new NotExpressible(`the answer to ${r.approvalId}: a denial with edited input: an edit decision runs the call`);
        return { type: "edit", editedAction: { name: r.name, args: p.editedInput } };
      }
      if (p.approved) return { type: "approve" };
      return p.reason !== undefined ? { type: "reject", message: p.reason } : { type: "reject" };
    });
    return { decisions };
  }

  // requestsOf pairs the interrupt's action requests with the calls of the
  // step's AIMessage (the last one), in order: the middleware asks for the
  // calls that need approval in the order of tool_calls.
  requestsOf(interrupt, lcMessages) {
    const ai = [...(lcMessages ?? [])].reverse().find((m) => m?._getType?.() === "ai" || m?.type === "ai");
    const calls = ai?.tool_calls ?? [];
    const out = [];
    let k = 0;
    for (const r of interrupt.value?.actionRequests ?? []) {
      while (k < calls.length && !(calls[k].name === r.name && JSON.stringify(calls[k].args) === JSON.stringify(r.args))) k++;
      if (k === calls.length) throw new Error(`action request ${r.name} matches no tool call of the step`);
      out.push({ approvalId: calls[k].id, toolCallId: calls[k].id, name: r.name });
      k++;
    }
    return out;
  }

  // answerOf is the turn answer: the messages the turn added to the thread
  // (the thread holds those of the turns before), an approval request part
  // per action request of a pending interrupt, the finish reason, and the
  // state to resume from.
  answerOf(snapshot, before, limited = false) {
    const lc = snapshot.values?.messages ?? [];
    const messages = toCanonical(lc.slice(before));
    const pending = snapshot.tasks.flatMap((t) => t.interrupts ?? []);
    const requests = [];
    if (pending.length > 0) {
      const asked = pending.length === 1 ? this.requestsOf(pending[0], lc) : [];
      let target = messages.findLast((m) => m.role === "assistant");
      for (const r of asked) {
        const part = { type: "tool-approval-request", approvalId: r.approvalId, toolCallId: r.toolCallId };
        target?.content.push(part);
        requests.push(part);
      }
    }
    const last = lc.at(-1);
    // A run ended by its step limit ends after the tools of its last step
    // ran: that step finished calling tools.
    const finishReason = pending.length > 0 || limited ? "tool-calls" : last?.tool_calls?.length > 0 ? "tool-calls" : "stop";
    return {
      messages,
      finishReason,
      state: { thread: snapshot.config.configurable.thread_id, checkpoint: snapshot.config.configurable.checkpoint_id },
      requests,
    };
  }

  // stream runs the turn with agent.stream in the "updates" and "messages"
  // modes and maps the SDK's stream parts onto canonical events: a
  // model_request node's run is a step (its text deltas, then its calls),
  // a tools node's update the results of its calls, the middleware's
  // update on a resume the rejections it wrote.
  async stream(agent, input, config, events, reachedLimit, prior) {
    // seen: the messages of the thread before the turn and those the
    // stream already reported. A node's update is what the node returned;
    // the thread's messages reducer merges a message whose id it holds
    // (addMessages), so a message seen before is not new. (At 1.0.6 a
    // middleware hook that changes nothing returns the whole state as its
    // update, dist/agents/nodes/middleware.js l.70; at 1.5.14 it returns
    // only jumpTo, l.70 too.)
    const seen = { ids: new Set(prior.map((m) => m?.id).filter(Boolean)), objects: new WeakSet(prior.filter((m) => m && typeof m === "object")) };
    const step = { open: false, finish: "stop", limited: false, seen };
    try {
      await this.streamParts(agent, input, config, events, step);
    } catch (e) {
      // The step limit ends the stream with GraphRecursionError after the
      // last step's tool results: the turn ends there.
      if (!reachedLimit(e)) throw e;
      step.limited = true;
    }
    return step;
  }

  // streamParts maps the stream's parts onto events, keeping in `step`
  // whether a step is open and its finish reason.
  async streamParts(agent, input, config, events, step) {
    const stream = await agent.stream(input, { ...config, streamMode: ["updates", "messages"] });
    for await (const [mode, data] of stream) {
      if (mode === "messages") {
        const [chunk, meta] = data;
        if (meta?.langgraph_node !== "model_request") continue;
        if (!step.open) {
          events.push({ type: "start-step" });
          step.open = true;
        }
        const text = textOf(chunk.content);
        if (text !== "") events.push({ type: "text-delta", text });
        continue;
      }
      for (const [node, update] of Object.entries(data ?? {})) {
        if (node === "__interrupt__") continue;
        const msgs = update?.messages ?? [];
        if (node === "model_request") {
          if (!step.open) events.push({ type: "start-step" });
          for (const m of toCanonical(msgs)) {
            for (const p of m.content) {
              if (p.type === "text" && !step.open) events.push({ type: "text-delta", text: p.text });
              if (p.type === "tool-call") events.push(p);
            }
          }
          step.finish = msgs.some((m) => m.tool_calls?.length > 0) ? "tool-calls" : "stop";
          step.open = true;
          continue;
        }
        // The tools node and the middleware's own messages (its rejections):
        // every ToolMessage is a result; an AIMessage the middleware
        // rewrote is not new.
        const fresh = msgs.filter((m) => m?._getType?.() === "tool" && !step.seen.objects.has(m) && !(m.id && step.seen.ids.has(m.id)));
        for (const m of fresh) {
          step.seen.objects.add(m);
          if (m.id) step.seen.ids.add(m.id);
        }
        const results = toCanonical(fresh);
        if (results.length === 0) continue;
        if (node !== "tools" && step.open) {
          events.push({ type: "finish-step", finishReason: step.finish });
          step.open = false;
        }
        for (const m of results) for (const p of m.content) events.push(p);
        if (node === "tools" && step.open) {
          // A step's tool runs end it.
          events.push({ type: "finish-step", finishReason: step.finish });
          step.open = false;
        }
      }
    }
    // A step still open is closed by the caller, after the approval
    // requests of a pending interrupt.
  }
}
