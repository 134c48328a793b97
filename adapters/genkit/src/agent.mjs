// The agent role: one driver protocol turn is one ai.generate() (or
// ai.generateStream()) of Genkit with the toolApproval middleware, as the
// middleware's README tells applications to call it: a call of a tool not
// in the approved list interrupts the generation (finishReason
// "interrupted", the call's part carrying metadata.interrupt), and the
// application resumes it by sending the messages back with
// resume: {restart: [restartTool(interrupt, {toolApproved: true})]} for an
// approval and resume: {respond: [respondTool(interrupt, output)]} for a
// denial. The history is the run state: nothing is kept between turns.

import { NotExpressible, ToolFailed, eventsOf, executeTool, failedTurn, turnError as kitTurnError } from "../../driverkit/index.mjs";
import { denialOutput, fromGenkit, toGenkit } from "./messages.mjs";
import { canonicalModel } from "./canonical-model.mjs";

const MODEL_ID = "ack-simulated";

/** turnError maps an error the SDK threw to a turn error. */
export function turnError(e) {
  let code = "Other";
  const msg = e?.message ?? String(e);
  if (/Unresolved tool request|Cannot 'resume'|Expected \d+ tool responses/.test(msg)) code = "InvalidApproval";
  // Genkit's own error for a call of a tool the generation does not have.
  else if (e?.name === "GenkitError" && e?.status === "NOT_FOUND" && /^NOT_FOUND: Tool .* not found/.test(msg)) code = "ToolNotFound";
  // A tool's failure (the driver kit's ToolFailed, which Genkit throws on).
  else if (e?.toolFailed) code = "ToolExecution";
  // The model plugins raise the provider's error answer as a GenkitError
  // whose message carries the HTTP status ("UNAVAILABLE: 503 overloaded").
  else if (typeof e?.status === "number" || /Connection error|fetch failed|canonical model: HTTP/.test(msg) || (e?.name === "GenkitError" && /^[A-Z_]+: [45]\d\d\b/.test(msg))) code = "Model";
  return kitTurnError(code, e);
}

/** Runner runs turns with one installed SDK version. */
export class Runner {
  // settleTools: a turn whose generation failed waits for the tool runs
  // still going before it answers (see settle).
  constructor({ sdk, settleTools = true }) {
    this.sdk = sdk;
    this.settleTools = settleTools;
  }

  // settle waits for the tool runs a failed generation left going. Genkit
  // runs a step's calls (and a resume's restarts) under one Promise.all
  // (generate/resolve-tool-requests.mjs l.125, l.245): the first call that
  // throws (a tool not found, l.51-56, or a tool's error) fails the
  // generation at once, while the others still run, unobserved; Genkit
  // has no option to run them one at a time. An application that answers
  // at once answers before those runs or after them, as timing falls; one
  // that lets its own tool functions finish first always answers after
  // them. A macrotask first lets every call Genkit already started reach
  // its function.
  async settle(runs) {
    let seen = -1;
    while (seen !== runs.size) {
      seen = runs.size;
      await new Promise((resolve) => setImmediate(resolve));
      await Promise.allSettled([...runs]);
    }
  }

  // instance is a Genkit instance whose model is the turn's: the
  // compat_oai plugin (Chat Completions) or the anthropic plugin pointed at
  // the simulator, or a model of the application's own (defineModel).
  instance(endpoint) {
    const { genkit, openAICompatible, anthropic } = this.sdk;
    switch (endpoint.api) {
      case "openai-chat": {
        const ai = genkit({ plugins: [openAICompatible({ name: "ack", apiKey: "sk-ack", baseURL: endpoint.baseURL, maxRetries: 0 })] });
        return { ai, model: `ack/${MODEL_ID}` };
      }
      case "anthropic-messages": {
        // The plugin takes no base URL: its Anthropic client reads
        // ANTHROPIC_BASE_URL when the plugin is created (synchronously), and
        // appends /v1/messages itself.
        const saved = process.env.ANTHROPIC_BASE_URL;
        process.env.ANTHROPIC_BASE_URL = endpoint.baseURL.replace(/\/v1\/?$/, "");
        let plugin;
        try {
          plugin = anthropic({ apiKey: "sk-ack" });
        } finally {
          if (saved === undefined) delete process.env.ANTHROPIC_BASE_URL;
          else process.env.ANTHROPIC_BASE_URL = saved;
        }
        const ai = genkit({ plugins: [plugin] });
        return { ai, model: `anthropic/${MODEL_ID}` };
      }
      case "canonical": {
        const ai = genkit({});
        return { ai, model: canonicalModel(ai, endpoint.baseURL) };
      }
    }
    return undefined;
  }

  // tools are the turn's tools. Each run of one is kept in `runs` until it
  // ends, so that a turn whose generation failed answers only after the
  // runs Genkit started and abandoned (see settle).
  tools(ai, req, runs) {
    if (req.toolkit !== "provided") return [];
    return (req.tools ?? []).map((t) => {
      if (t.providerExecuted) throw new NotExpressible(`the provider-run tool ${t.name}: Genkit's tools run in the application; it has no approval for a tool the provider runs`);
      if (t.approval === "dynamic") throw new NotExpressible(`the dynamic policy of ${t.name}: toolApproval takes a fixed list of approved tools, no per-call policy`);
      return ai.defineTool(
        { name: t.name, description: t.description || t.name, inputJsonSchema: t.inputSchema ?? { type: "object" } },
        (input, { context } = {}) => {
          const run = executeTool(t, { toolCallId: context?.ackToolCallId ?? null, input }).then((output) => output ?? null);
          if (this.settleTools) {
            runs.add(run);
            run.then(() => runs.delete(run), () => runs.delete(run));
          }
          return run;
        },
      );
    });
  }

  // callRefs is a middleware (generateMiddleware, Genkit's own API for
  // it) that puts the tool request's ref into the tool's context.
  callRefs() {
    if (!this.refs) {
      this.refs = this.sdk.generateMiddleware({ name: "ackCallRefs", description: "hands a tool its request's ref" }, () => ({
        tool: async (req, ctx, next) => next(req, { ...ctx, context: { ...(ctx?.context ?? {}), ackToolCallId: req.toolRequest.ref } }),
      }));
    }
    return this.refs({});
  }

  // turn runs one turn; the driver kit has checked the request (its model
  // API and denial policy are declared ones, its messages a list).
  async turn(req) {
    const { toolApproval } = this.sdk;
    const { ai, model } = this.instance(req.model);

    const { messages, answers } = toGenkit(req.messages);
    const runs = new Set();
    const tools = this.tools(ai, req, runs);
    const approved = (req.tools ?? []).filter((t) => t.approval === "never").map((t) => t.name);
    // toolApproval first, as its README shows; then a middleware of the
    // application's own that hands each tool its call's ref (Genkit gives a
    // tool its input and context, not its request).
    const opts = { model, messages, tools, use: [toolApproval({ approved }), this.callRefs()] };
    if (req.options?.maxSteps > 0) opts.maxTurns = Math.max(req.options.maxSteps - 1, 0);
    if (answers) opts.resume = this.resume(messages, answers);

    let response;
    const chunks = [];
    try {
      if (req.mode === "stream") {
        const { stream, response: done } = ai.generateStream(opts);
        for await (const c of stream) chunks.push(c);
        response = await done;
      } else {
        response = await ai.generate(opts);
      }
    } catch (e) {
      if (e instanceof NotExpressible) throw e;
      if (this.settleTools) await this.settle(runs);
      return failedTurn(req, turnError(e));
    }
    const added = response.messages.slice(messages.length);
    const out = fromGenkit(added, Boolean(answers));
    const finishReason = response.finishReason === "interrupted" ? "tool-calls" : response.finishReason === "length" ? "length" : "stop";
    const answer = { messages: out, finishReason };
    if (req.mode === "stream") answer.events = eventsOf(out, finishReason, { textDeltas: textDeltas(chunks) });
    return answer;
  }

  // resume builds the resume option from the answers: for each answer, the
  // call its approval request names, found in the last model message, is
  // restarted (approved: restartTool with toolApproved, and replaceInput
  // for an edited input) or answered (denied: respondTool with the
  // denial's output).
  resume(messages, answers) {
    const { restartTool, respondTool } = this.sdk;
    const last = messages.at(-1);
    const restart = [];
    const respond = [];
    for (const a of answers) {
      const part = last?.role === "model" ? last.content.find((p) => p.toolRequest?.ref === a.toolCallId) : undefined;
      if (!part) throw new NotExpressible(`${a.where}: the answer to ${JSON.stringify(a.approvalId)} names a call that is not in the last model message: resume answers the calls of the message it resumes`);
      if (a.approved) {
        restart.push(a.editedInput !== undefined ? restartTool(part, { toolApproved: true }, { replaceInput: a.editedInput }) : restartTool(part, { toolApproved: true }));
      } else {
        if (a.editedInput !== undefined) throw new NotExpressible(`${a.where}: a denial with edited input: an edit restarts the call`);
        respond.push(respondTool(part, denialOutput(a.reason)));
      }
    }
    const r = {};
    if (restart.length > 0) r.restart = restart;
    if (respond.length > 0) r.respond = respond;
    return r;
  }
}

// textDeltas are the streamed texts of a generation, step by step: the
// model chunks' texts, grouped by the chunk's index (one per model
// response).
function textDeltas(chunks) {
  const texts = new Map();
  for (const c of chunks) {
    if (c.role !== "model") continue;
    const t = c.text ?? "";
    if (t === "") continue;
    if (!texts.has(c.index)) texts.set(c.index, []);
    texts.get(c.index).push(t);
  }
  return [...texts.values()];
}
