// The agent role: one driver protocol turn is one turn of the SDK. This
// file is the SDK mapping, and the places marked SDK: are where your
// SDK's calls go: build its model, its tools and its conversation from the
// turn request, call it in generate or stream mode, and map its answer
// (the messages the turn added, its stream events, its finish reason) or
// its error back onto the protocol. The driver kit does the rest: it
// serves the endpoints, checks every request, and answers the turns the
// SDK cannot express (docs/adapter-guide.md).

import { BoundedMap, NotExpressible, askPolicy, executeTool, failedTurn, turnError } from "../driverkit/index.mjs";
import { canonicalModel } from "./model.mjs";
// SDK: import your SDK here (an installed version folder: see runAdapter's
// `sdk` option in adapter.mjs), and delete ../example-sdk.
import { Agent, AgentError, Ledger } from "../example-sdk/index.mjs";

// SDK: your SDK's errors, mapped onto the protocol's turn error codes
// (ToolkitRequired, ToolNotFound, InvalidApproval, MissingToolResults,
// InvalidMessages, ToolExecution, Model, Other).
const ERROR_CODES = {
  "invalid-messages": "InvalidMessages",
  "toolkit-required": "ToolkitRequired",
  "tool-not-found": "ToolNotFound",
  "invalid-approval": "InvalidApproval",
  "missing-results": "MissingToolResults",
  model: "Model",
};

/** errorOf maps an error the SDK threw to a turn error. */
export function errorOf(e) {
  return turnError((e instanceof AgentError && ERROR_CODES[e.code]) || "Other", e);
}

/** Runner runs turns with the SDK. */
export class Runner {
  // secret signs the SDK's approval requests: one per adapter process, the
  // same for every turn (a scenario's later turns carry the requests of
  // its earlier ones).
  constructor({ secret }) {
    this.secret = secret;
    // What the SDK keeps per conversation (here its replay ledger), keyed
    // by the turn's `conversation`, so that no scenario sees another's.
    this.ledgers = new BoundedMap(1000);
  }

  // tools are the turn's tools in the SDK's tool form. Each runs in the
  // harness (executeTool posts the call to the tool's executeURL), and a
  // dynamic policy asks the harness (askPolicy, with the conversation the
  // SDK gives its policy).
  tools(req) {
    // `toolkit` says whether the SDK gets the tools, none at all (absent),
    // or an empty set (empty): two different inputs.
    if (req.toolkit === "absent") return undefined;
    if (req.toolkit === "empty") return [];
    return (req.tools ?? []).map((t) => {
      // SDK: a tool the provider runs (a hosted MCP server) goes to your
      // SDK's provider-run tool, if it has one; this SDK has none.
      if (t.providerExecuted) throw new NotExpressible(`the provider-run tool ${t.name}: the example SDK runs every tool itself`);
      // SDK: your SDK's tool definition.
      return {
        name: t.name,
        description: t.description,
        inputSchema: t.inputSchema,
        // always: "needs approval"; never: no approval at all (never an
        // automatic approval); dynamic: the harness's policy.
        needsApproval: t.approval === "dynamic" ? (call) => askPolicy(t, call) : t.approval === "always",
        execute: (input, { toolCallId }) => executeTool(t, { toolCallId, input }),
      };
    });
  }

  // turn runs one turn. The kit has checked the request: its model API and
  // denial policy are declared ones, and its messages a list (their
  // content is the SDK's to judge: some scenarios send malformed ones on
  // purpose, which the SDK must refuse).
  async turn(req) {
    const ledger = this.ledgers.getOrSet(req.conversation ?? "", () => new Ledger(req.options?.replayLedger || undefined));
    // SDK: build your SDK's agent (or call) from the request.
    const agent = new Agent({
      model: canonicalModel(req.model.baseURL),
      tools: this.tools(req),
      // The harness sends maxSteps only when a scenario sets it; without
      // it, the SDK's own default must be 2 or more.
      maxSteps: req.options?.maxSteps || 5,
      concurrency: req.options?.concurrency ?? 0,
      secret: this.secret,
      ledger,
    });
    // SDK: convert the canonical messages to your SDK's (the example SDK
    // takes them as they are). Never repair or drop what the scenario
    // sent; what your SDK cannot express at all is NotExpressible.
    const messages = req.messages;
    if (req.mode === "generate") {
      try {
        return await agent.generate(messages);
      } catch (e) {
        return failedTurn(req, errorOf(e));
      }
    }
    // Stream mode: the SDK's stream events, in order, as canonical events.
    const { events, result } = agent.stream(messages);
    const out = [];
    for await (const ev of events) {
      // SDK: map your SDK's stream parts here.
      switch (ev.type) {
        case "step-start":
          out.push({ type: "start-step" });
          break;
        case "text":
          out.push({ type: "text-delta", text: ev.delta });
          break;
        case "call":
        case "approval":
        case "result":
          out.push(ev.part);
          break;
        case "step-end":
          out.push({ type: "finish-step", finishReason: ev.finishReason });
          break;
        case "done":
          out.push({ type: "finish", finishReason: ev.finishReason });
          break;
        case "error":
          return failedTurn(req, errorOf(ev.error), out);
      }
    }
    return { ...(await result), events: out };
  }
}
