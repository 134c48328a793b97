// The agent role: one driver protocol turn is one call of the SDK's
// generateText or streamText.

import { CanonicalError, fromCanonicalMessages, toCanonicalMessages, toCanonicalOutput, toCanonicalPart } from "./canonical.mjs";
import { turnError, sdkErrorText } from "./errors.mjs";
import { postJSON } from "./http.mjs";
import { canonicalModel } from "./canonical-model.mjs";

/** NotExpressible is an input the SDK has no form for. */
class NotExpressible extends Error {}

// The step limit of a turn when the harness gives none: a turn loops (the
// model is called again after tools ran) up to this many model calls.
export const DEFAULT_MAX_STEPS = 5;

// The model id the simulator is asked for; it accepts any.
const MODEL_ID = "ack-simulated";

/**
 * Agent runs turns with one SDK version in one approval form.
 *
 * form: "needsApproval" (the tool's own needsApproval, both lines) or
 * "toolApproval" (the generateText/streamText option, 7.x).
 * secret: the SDK's experimental_toolApprovalSecret, or undefined.
 */
export class Agent {
  constructor({ sdk, major, form, secret, defaultSteps = DEFAULT_MAX_STEPS, validateMessages = true }) {
    this.sdk = sdk;
    this.major = major;
    this.form = form;
    this.secret = secret;
    // The step limit of a turn that sets none (null: the SDK's own).
    this.defaultSteps = defaultSteps;
    // Whether incoming messages are checked with the SDK's modelMessageSchema.
    this.validateMessages = validateMessages;
  }

  model(endpoint) {
    const { openai, anthropic } = this.sdk;
    switch (endpoint.api) {
      case "openai-chat":
        return openai.createOpenAI({ baseURL: endpoint.baseURL, apiKey: "sk-ack" }).chat(MODEL_ID);
      case "openai-responses":
        return openai.createOpenAI({ baseURL: endpoint.baseURL, apiKey: "sk-ack" }).responses(MODEL_ID);
      case "anthropic-messages":
        // @ai-sdk/anthropic keeps /v1 in its base URL (it posts to {baseURL}/messages).
        return anthropic.createAnthropic({ baseURL: endpoint.baseURL, apiKey: "sk-ant-ack" })(MODEL_ID);
      case "canonical":
        // The application's own model: LanguageModelV4 in ai 7, V3 in ai 6.
        return canonicalModel(this.sdk.ai, endpoint.baseURL, this.major >= 7 ? "v4" : "v3");
    }
    return undefined;
  }

  // inputSchema gives the SDK the kit's JSON Schema as is, validated with
  // zod's reading of it: what an application whose tools have zod schemas
  // gets (the SDK's jsonSchema() alone validates nothing).
  inputSchema(schema) {
    const { ai, z } = this.sdk;
    const s = schema ?? { type: "object" };
    const validator = z.fromJSONSchema(s);
    return ai.jsonSchema(s, {
      validate: (value) => {
        const r = validator.safeParse(value);
        return r.success ? { success: true, value: r.data } : { success: false, error: r.error };
      },
    });
  }

  // policy asks the harness whether a call needs approval; it throws when
  // the policy fails, as an application's policy function would.
  policy(t) {
    return async (input, options) => {
      const body = { toolCallId: options.toolCallId, input: input ?? null, messages: toCanonicalMessages(options.messages ?? [], "policy.messages") };
      const r = await postJSON(t.policyURL, body, options.abortSignal);
      if (typeof r.error === "string") throw new Error(r.error);
      if (typeof r.needsApproval !== "boolean") throw new Error(`policy callback: needsApproval is not a boolean`);
      return r.needsApproval;
    };
  }

  // hosted maps a tool the provider runs (a hosted MCP server) to the
  // provider package's own tool: OpenAI's MCP tool, which asks approval
  // (the scenarios' provider asks). The kit names the server by its label
  // only; the URL, which the SDK requires and passes on as it is, is a
  // placeholder no one calls. No other provider API has hosted approvals.
  hosted(t, endpoint) {
    if (endpoint.api !== "openai-responses" && endpoint.api !== "canonical") return undefined;
    const label = t.serverLabel || t.name;
    return this.sdk.openai.createOpenAI({ apiKey: "sk-ack" }).tools.mcp({
      serverLabel: label,
      serverUrl: `https://${encodeURIComponent(label)}.mcp.invalid/`,
      requireApproval: "always",
    });
  }

  tools(req) {
    const { ai } = this.sdk;
    const tools = {};
    const approval = {};
    for (const t of req.tools ?? []) {
      if (t.providerExecuted) {
        const hosted = this.hosted(t, req.model);
        if (!hosted) throw new NotExpressible(`the hosted tool ${t.name} has no form on ${req.model.api}: only OpenAI's Responses API runs MCP servers that ask approval`);
        tools[t.name] = hosted;
        continue;
      }
      const def = {
        description: t.description,
        inputSchema: this.inputSchema(t.inputSchema),
        execute: async (input, { toolCallId, abortSignal }) => {
          const r = await postJSON(t.executeURL, { toolCallId, input: input ?? null }, abortSignal);
          if (typeof r.error === "string") throw new Error(r.error);
          return r.output;
        },
      };
      if (this.form === "needsApproval") {
        if (t.approval === "always") def.needsApproval = true;
        if (t.approval === "dynamic") def.needsApproval = this.policy(t);
      } else {
        if (t.approval === "always") approval[t.name] = "user-approval";
        if (t.approval === "dynamic") {
          const ask = this.policy(t);
          approval[t.name] = async (input, options) => ((await ask(input, options)) ? "user-approval" : "not-applicable");
        }
      }
      tools[t.name] = ai.tool(def);
    }
    return { tools, approval };
  }

  async turn(req) {
    const { ai } = this.sdk;
    const policy = req.options?.denialPolicy;
    if (policy && policy !== "independent") {
      return { error: { code: "NotExpressible", message: `denial policy ${policy}: the SDK decides each call on its own answer (independent) only` } };
    }
    const parsed = this.validateMessages ? fromCanonicalMessages(ai, req.messages) : { messages: req.messages };
    if (parsed.error) {
      return { error: { code: "InvalidMessages", message: parsed.error, sdkError: `modelMessageSchema: ${parsed.sdkError ?? parsed.error}` } };
    }
    const model = this.model(req.model);
    if (!model) {
      return { error: { code: "NotExpressible", message: `model API ${req.model.api} is not one this adapter points the SDK at` } };
    }
    const args = {
      model,
      messages: parsed.messages,
      maxRetries: 0,
      // The conversation is the application's own history, system messages included.
      allowSystemInMessages: true,
    };
    // The step limit: the turn's maxSteps, else the adapter's default
    // (DEFAULT_MAX_STEPS, or --default-steps); with --default-steps sdk no
    // stopWhen at all, the SDK's own default (one step).
    const steps = req.options?.maxSteps > 0 ? req.options.maxSteps : this.defaultSteps;
    if (steps != null) args.stopWhen = ai.stepCountIs(steps);
    if (this.secret) args.experimental_toolApprovalSecret = this.secret;
    if (req.toolkit !== "absent") {
      let built;
      try {
        built = req.toolkit === "empty" ? { tools: {}, approval: {} } : this.tools(req);
      } catch (e) {
        if (e instanceof NotExpressible) return { error: { code: "NotExpressible", message: e.message } };
        throw e;
      }
      const { tools, approval } = built;
      args.tools = tools;
      if (this.form === "toolApproval") args.toolApproval = approval;
    }
    if (req.options?.concurrency > 0) args.toolCallConcurrency = req.options.concurrency;
    try {
      return req.mode === "stream" ? await this.stream(args) : await this.generate(args);
    } catch (e) {
      if (e instanceof CanonicalError) throw e;
      return { error: turnError(ai, e) };
    }
  }

  async generate(args) {
    const r = await this.sdk.ai.generateText(args);
    const messages = r.responseMessages ?? r.response.messages;
    return { messages: toCanonicalMessages(messages), finishReason: r.finishReason };
  }

  async stream(args) {
    const { ai } = this.sdk;
    let failure;
    const r = ai.streamText({ ...args, onError: ({ error }) => { failure ??= error; } });
    const parts = [];
    for await (const p of r.fullStream) parts.push(p);
    if (failure) {
      const error = turnError(ai, failure);
      return { error, events: [...streamEvents(parts, []), { type: "error", code: error.code, message: sdkErrorText(failure) }] };
    }
    const messages = toCanonicalMessages(r.responseMessages ? await r.responseMessages : (await r.response).messages);
    const finishReason = await r.finishReason;
    return { messages, events: streamEvents(parts, messages), finishReason };
  }
}

// resultsByCall indexes the tool results of the turn's messages.
function resultsByCall(messages) {
  const out = new Map();
  for (const m of messages) {
    if (!Array.isArray(m.content)) continue;
    for (const p of m.content) {
      if (p.type === "tool-result" && !out.has(p.toolCallId)) out.set(p.toolCallId, p);
    }
  }
  return out;
}

function approvalPart(p) {
  return toCanonicalPart({
    type: "tool-approval-request",
    approvalId: p.approvalId,
    toolCallId: p.toolCall?.toolCallId ?? p.toolCallId,
    signature: p.signature,
    reason: p.reason,
    isAutomatic: p.isAutomatic,
  }, "stream");
}

/**
 * streamEvents maps the SDK's fullStream parts to canonical events. A tool
 * result event carries the result part the turn's messages hold for that
 * call (the SDK's typed output of the same result); a result the messages
 * do not hold is typed the way the SDK types outputs.
 */
export function streamEvents(parts, messages) {
  const results = resultsByCall(messages);
  const events = [];
  const result = (p, fallback) => {
    const held = results.get(p.toolCallId);
    if (held) return { ...held };
    const out = { type: "tool-result", toolCallId: p.toolCallId, toolName: p.toolName, output: fallback };
    if (p.providerExecuted) out.providerExecuted = true;
    return out;
  };
  for (const p of parts) {
    switch (p.type) {
      case "start-step":
        events.push({ type: "start-step" });
        break;
      case "text-delta":
        events.push({ type: "text-delta", text: p.text ?? p.delta ?? "" });
        break;
      case "tool-call":
        events.push(toCanonicalPart(p, "stream"));
        break;
      case "tool-approval-request":
        events.push(approvalPart(p));
        break;
      case "tool-result":
        if (p.preliminary) break;
        events.push(result(p, toCanonicalOutput(typeof p.output === "string" ? { type: "text", value: p.output } : { type: "json", value: p.output ?? null }, "stream")));
        break;
      case "tool-error":
        events.push(result(p, { type: "error-text", value: p.error instanceof Error ? p.error.message : typeof p.error === "string" ? p.error : JSON.stringify(p.error) }));
        break;
      case "tool-output-denied":
        events.push(result(p, { type: "execution-denied" }));
        break;
      case "finish-step":
        events.push({ type: "finish-step", finishReason: p.finishReason });
        break;
      case "finish":
        events.push({ type: "finish", finishReason: p.finishReason });
        break;
    }
  }
  return events;
}
