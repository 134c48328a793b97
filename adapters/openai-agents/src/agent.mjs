// The agent role: one driver protocol turn is one run() of the SDK, which
// ends with a final output or with interruptions (calls waiting for
// approval). The run state travels in the turn answer's `state` (the
// adapter declares resumeState): it is RunState.toString() as JSON, and the
// next turn of the conversation resumes from it with RunState.fromString,
// state.approve / state.reject for each answer, and run(agent, state), as
// the SDK's docs tell applications to.

import { CanonicalError, NotExpressible, StateStore, askPolicy, executeTool, failedTurn, trailingAnswers, turnError as kitTurnError, withFinish } from "../../driverkit/index.mjs";
import { approvalIdOf, toCanonicalEvents, toCanonicalMessages, toInputItems } from "./items.mjs";
import { canonicalModel } from "./canonical-model.mjs";

const MODEL_ID = "ack-simulated";

// The run states a server-held adapter (--run-state server) keeps at most.
const MAX_SERVER_STATES = 4096;

// The SDK's own text for a denial without a message
// (runner/approvalRejection.mjs, TOOL_APPROVAL_REJECTION_MESSAGE).
const DENIAL_TEXT = "Tool execution was not approved.";

const errorCodes = [
  ["ToolCallError", "ToolExecution"],
  ["ToolTimeoutError", "ToolExecution"],
  ["InvalidToolOutputError", "ToolExecution"],
  ["ModelBehaviorError", "Model"],
  ["ModelRefusalError", "Model"],
  ["ModelTimeoutError", "Model"],
];

/** turnError maps an error the SDK threw to a turn error. */
export function turnError(sdk, e) {
  let code = "Other";
  for (const [cls, c] of errorCodes) {
    if (sdk[cls] && e instanceof sdk[cls]) {
      code = c;
      break;
    }
  }
  // The openai client's errors: the provider answered an error, or could not be reached.
  if (code === "Other" && sdk.OpenAI && (e instanceof sdk.OpenAI.APIError)) code = "Model";
  return kitTurnError(code, e);
}

// settledCalls maps the approval handle of each call a paused run already
// settled (its result is among the run's items) to the call's id: a
// function call's handle is its call id; a hosted MCP call's, the approval
// request id its answer or its run names.
function settledCalls(items) {
  const settled = new Map();
  for (const it of items) {
    const raw = it.rawItem ?? {};
    if (it.type === "tool_call_output_item" && typeof raw.callId === "string") settled.set(raw.callId, raw.callId);
    if (it.type === "tool_call_item" && raw.type === "hosted_tool_call") {
      const id = raw.providerData?.approval_request_id;
      if (typeof id === "string") settled.set(id, id);
    }
  }
  return settled;
}

/** Runner runs turns with one installed SDK version. */
export class Runner {
  // turnLimit is what a turn that reaches maxTurns answers: "state" (the
  // default) returns the items of MaxTurnsExceededError's run state as the
  // turn's messages, as an application following the SDK's docs reads them
  // (limitAnswer); "error" answers the thrown error as a turn error, the
  // other value of that choice (adapters/certify.yaml, choices).
  //
  // runState is where a paused run's RunState is kept between turns:
  // "client" (the default) sends it to the client in the turn answer's
  // `state` and reads it back from the next request, the SDK's "along with
  // your request"; "server" keeps it in the adapter (at most
  // MAX_SERVER_STATES, the oldest dropped first) and sends the client only
  // its id, the SDK's "store your serialized state in a database" (both in
  // the human-in-the-loop guide, "Dealing with longer approval times").
  // That choice moves SEC-02 (adapters/certify.yaml, choices).
  constructor({ sdk, turnLimit = "state", runState = "client" }) {
    this.sdk = sdk;
    this.turnLimit = turnLimit;
    this.runState = runState;
    this.states = new StateStore({ max: MAX_SERVER_STATES });
  }

  // stateOut is the turn answer's `state` for a run state: the state
  // itself (client-held), or the id under which the adapter keeps it.
  stateOut(state) {
    const text = state.toString();
    if (this.runState !== "server") return JSON.parse(text);
    return { runStateId: this.states.put(text) };
  }

  // stateIn is the serialized run state a request's `state` stands for, or
  // undefined when the adapter keeps no state under the id it names.
  stateIn(state) {
    if (this.runState !== "server") return JSON.stringify(state);
    return this.states.get(state?.runStateId);
  }

  // limitAnswer is the turn answer of a run that reached its turn limit, or
  // undefined when e is no such error (or the adapter runs with
  // --turn-limit error). The SDK runs the calls of the last model turn it
  // allows, then throws MaxTurnsExceededError before the next model call
  // (@openai/agents-core dist/runner/turnPreparation.mjs l.56-62: `throw new
  // MaxTurnsExceededError(..., state)`). Its docs say what an application
  // does with it: run.d.ts (Runner.run): "If the maxTurns is exceeded, a
  // MaxTurnsExceeded exception is raised unless handled"; errors.d.ts:
  // every AgentsError carries `state?: RunState`; the Running agents guide
  // (docs/src/content/docs/guides/running-agents.mdx, "Exceptions"): "All
  // extend the base AgentsError class, which could provide the state
  // property to access the current run state"; and the Results guide
  // (results.mdx): a result's `newItems` are the run's items, "tool
  // outputs" among them, over the state the result wraps (RunResult's
  // constructor takes a RunState, result.d.ts). So the application reads
  // the run's items from the error's state: the calls the run made and the
  // results of the tools that ran, returned here as the turn's messages
  // (the items of earlier turns of a resumed run left out, as answerOf
  // does). The other documented way, errorHandlers.maxTurns, turns the
  // error into a final output the application writes itself; the adapter
  // writes no model text of its own, so it does not take it.
  //
  // The finish reason is tool-calls: the run stopped after a model turn
  // that made tool calls, and the model was not called with their results
  // (the SDK has no finish reason of its own for a run; the adapter's
  // finish reasons are tool-calls and stop, and this run did not finish).
  limitAnswer(e, before) {
    const { MaxTurnsExceededError, RunResult } = this.sdk;
    if (this.turnLimit !== "state" || !MaxTurnsExceededError || !(e instanceof MaxTurnsExceededError) || !e.state) return undefined;
    return this.answerOf(new RunResult(e.state), before, "tool-calls");
  }

  model(endpoint) {
    const { OpenAI, OpenAIChatCompletionsModel, OpenAIResponsesModel } = this.sdk;
    const client = () => new OpenAI({ baseURL: endpoint.baseURL, apiKey: "sk-ack", maxRetries: 0 });
    switch (endpoint.api) {
      case "openai-chat":
        return new OpenAIChatCompletionsModel(client(), MODEL_ID);
      case "openai-responses":
        return new OpenAIResponsesModel(client(), MODEL_ID);
      case "canonical":
        return canonicalModel(this.sdk, endpoint.baseURL);
    }
    return undefined;
  }

  // policy asks the harness whether a call needs approval. The SDK gives a
  // policy the run context, the input and the call id, not the
  // conversation: the conversation is what the application put into the
  // run context (context.messages), as the turn began.
  policy(t) {
    return (runContext, input, callId) => askPolicy(t, { toolCallId: callId, input, messages: runContext?.context?.messages ?? [] });
  }

  tools(req) {
    const { tool, hostedMcpTool } = this.sdk;
    if (req.toolkit !== "provided") return [];
    return (req.tools ?? []).map((t) => {
      if (t.providerExecuted) {
        if (req.model.api !== "openai-responses" && req.model.api !== "canonical") {
          throw new NotExpressible(`the hosted tool ${t.name} has no form on ${req.model.api}: the SDK's hosted MCP tool runs on OpenAI's Responses API (or a model of the application's own) only`);
        }
        // The kit names a server by its label; the URL the SDK requires is a
        // placeholder no one calls (the simulator plays the provider).
        const label = t.serverLabel || t.name;
        return hostedMcpTool({ serverLabel: label, serverUrl: `https://${encodeURIComponent(label)}.mcp.invalid/`, requireApproval: "always" });
      }
      const def = {
        name: t.name,
        description: t.description ?? "",
        parameters: t.inputSchema ?? { type: "object" },
        strict: false,
        needsApproval: t.approval === "always" ? true : t.approval === "dynamic" ? this.policy(t) : false,
        execute: (input, _ctx, details) => executeTool(t, { toolCallId: details?.toolCall?.callId, input, signal: details?.signal }),
      };
      return tool(def);
    });
  }

  // turn runs one turn; the driver kit has checked the request (its model
  // API and denial policy are declared ones, its messages a list).
  async turn(req) {
    const { Agent, RunState, RunResult, run } = this.sdk;
    const model = this.model(req.model);
    const agent = new Agent({ name: "ack-agent", model, tools: this.tools(req) });
    const options = { context: { messages: req.messages } };
    if (req.options?.maxSteps > 0) options.maxTurns = req.options.maxSteps;
    // The SDK's bound on local function tools run at once (RunConfig and
    // run options: toolExecution.maxFunctionToolConcurrency; unset starts
    // every call of a step at once).
    if (req.options?.concurrency > 0) options.toolExecution = { maxFunctionToolConcurrency: req.options.concurrency };

    let input;
    let before = [];
    if (req.state != null) {
      const text = this.stateIn(req.state);
      if (text === undefined) {
        return { error: { code: "InvalidApproval", message: `the state ${JSON.stringify(req.state)} names no run state this server keeps` } };
      }
      let state;
      try {
        state = await RunState.fromString(agent, text);
      } catch (e) {
        // The SDK refuses a state whose pending call names a tool the agent
        // no longer has (UserError "Tool X not found", runState.mjs), and a
        // state it cannot read.
        const code = /^(MCP )?[Tt]ool .* not found$/.test(e?.message ?? "") ? "ToolNotFound" : "InvalidApproval";
        return { error: { code, message: `the SDK refused the run state: ${e.message}`, sdkError: `${e.constructor?.name}: ${e.message}` } };
      }
      if (state.getInterruptions().length > 0) {
        this.answer(state, req.messages);
        before = new RunResult(state).newItems.slice();
        input = state;
      }
    }
    input ??= toInputItems(req.messages, DENIAL_TEXT);

    if (req.mode === "stream") {
      const events = [];
      let result;
      try {
        result = await run(agent, input, { ...options, stream: true });
        for await (const ev of result) {
          if (ev.type === "raw_model_stream_event" && ev.data?.type === "output_text_delta") {
            events.push({ type: "text-delta", text: ev.data.delta });
          } else if (ev.type === "run_item_stream_event") {
            events.push(...toCanonicalEvents(ev.item));
          }
        }
        await result.completed;
        if (result.error) throw result.error;
      } catch (e) {
        if (e instanceof CanonicalError || e instanceof NotExpressible) throw e;
        const limited = this.limitAnswer(e, before);
        if (limited) return { ...limited, events: withFinish(events, limited.finishReason) };
        return failedTurn(req, turnError(this.sdk, e), events);
      }
      // The run's stream ended: the SDK's finish of the turn.
      const answer = this.answerOf(result, before);
      return { ...answer, events: withFinish(events, answer.finishReason) };
    }
    let result;
    try {
      result = await run(agent, input, options);
    } catch (e) {
      if (e instanceof CanonicalError || e instanceof NotExpressible) throw e;
      return this.limitAnswer(e, before) ?? failedTurn(req, turnError(this.sdk, e));
    }
    return this.answerOf(result, before);
  }

  // answer applies the answers of a turn to the interruptions of the state
  // it resumes. The answers are the messages after the last assistant
  // message; the SDK takes nothing else with a RunState (run() takes input
  // items or a state, never both), and an answer is an approve or reject
  // of one interruption, so anything else has no form in the SDK.
  //
  // What an earlier turn of the same paused run already did is left there:
  // the run state records it (a partial batch, a step whose free call ran
  // while its sibling waits), and the application's history shows it as
  // that turn's answer laid it out. A result the state already holds, and
  // an answer to a call the state settled that comes before its call's
  // result in the history (the earlier turn's answer, then the result it
  // produced), are that record, not new answers: the application applied
  // them once and does not apply them again. An answer that comes after its
  // call's result (a consumed answer sent again), or that names a call the
  // state does not know, still has no form in the SDK.
  answer(state, messages) {
    const interruptions = state.getInterruptions();
    const settled = settledCalls(new this.sdk.RunResult(state).newItems);
    // resultAt: the index of the message holding each call's result.
    const resultAt = new Map();
    messages.forEach((m, i) => {
      if (Array.isArray(m?.content)) for (const p of m.content) if (p?.type === "tool-result" && !resultAt.has(p.toolCallId)) resultAt.set(p.toolCallId, i);
    });
    const answers = trailingAnswers(messages, {
      beside: "answers to a paused run",
      only: "the SDK resumes a RunState with approvals only (run() takes input items or a state, never both)",
      answerIs: "the SDK's answer is a call of state.approve or state.reject on an interruption",
      skip: (p) => p?.type === "tool-result" && settled.has(p.toolCallId),
    });
    let answered = 0;
    for (const { part: p, where, message: i } of answers) {
      const item = interruptions.find((it) => approvalIdOf(it) === p.approvalId);
      if (!item) {
        const call = settled.get(p.approvalId);
        if (call !== undefined && resultAt.has(call) && resultAt.get(call) > i) continue;
        throw new NotExpressible(`${where}: the answer to ${JSON.stringify(p.approvalId)} matches none of the run state's interruptions: the SDK's answers are state.approve or state.reject of an interruption`);
      }
      if (p.approved) state.approve(item);
      else state.reject(item, p.reason !== undefined ? { message: p.reason } : undefined);
      answered++;
    }
    if (answered === 0) {
      throw new NotExpressible("a turn that resumes a paused run without answering any of its approvals: the SDK resumes a RunState with approvals only");
    }
  }

  // answerOf is the turn answer of a finished run: the messages of the items
  // the run made in this turn (a resumed run's result lists the items of
  // the turns before too), the finish reason (finishReason when given), and
  // the state to resume from.
  answerOf(result, before, finishReason) {
    const seen = new Map();
    for (const it of before) {
      const k = JSON.stringify([it.type, it.rawItem]);
      seen.set(k, (seen.get(k) ?? 0) + 1);
    }
    const items = result.newItems.filter((it) => {
      const k = JSON.stringify([it.type, it.rawItem]);
      const n = seen.get(k) ?? 0;
      if (n === 0) return true;
      seen.set(k, n - 1);
      return false;
    });
    const interrupted = result.interruptions?.length > 0;
    return {
      messages: toCanonicalMessages(items),
      finishReason: finishReason ?? (interrupted ? "tool-calls" : "stop"),
      state: this.stateOut(result.state),
    };
  }
}
