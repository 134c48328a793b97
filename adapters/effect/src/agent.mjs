// The agent role: one driver protocol turn is one call of Effect's
// LanguageModel.generateText or LanguageModel.streamText, with a Toolkit of
// the turn's tools and their handlers, and the application's own
// LanguageModel (models.mjs) pointed at the simulator.
//
// Effect's generateText makes one model call: it first resolves the
// approvals the prompt answers (runs the approved calls, gives the denied
// ones their denial result), calls the model once, then runs the calls of
// the reply that need no approval and asks approval for the others. It has
// no step loop; the adapter declares steps: single and the harness plays
// the application's loop.

import { CanonicalError, toCanonicalEvent, toCanonicalMessages, toEffectMessages } from "./prompt.mjs";
import { makeModel } from "./models.mjs";
import { postJSON } from "../../driver-http/http.mjs";

const toolErrorTags = new Set(["ToolParameterValidationError", "InvalidToolResultError", "ToolResultEncodingError", "ToolConfigurationError"]);

/** turnErrorOf maps what a failed turn's Cause holds to a turn error. */
export function turnErrorOf(sdk, cause) {
  const { Cause, AiError } = sdk;
  const fail = cause.reasons.find(Cause.isFailReason);
  if (!fail) {
    const die = cause.reasons.find(Cause.isDieReason);
    const d = die?.defect;
    if (d instanceof CanonicalError) throw d;
    return { code: "Other", message: `the SDK's turn died: ${d instanceof Error ? d.message : String(d)}`, sdkError: Cause.pretty(cause) };
  }
  const e = fail.error;
  if (AiError.isAiError(e)) {
    const tag = e.reason?._tag;
    let code = "Model";
    if (tag === "ToolkitRequiredError") code = "ToolkitRequired";
    else if (tag === "ToolNotFoundError") code = "ToolNotFound";
    else if (tag === "InvalidUserInputError") code = "InvalidMessages";
    else if (toolErrorTags.has(tag)) code = "ToolExecution";
    return { code, message: e.message, sdkError: `AiError(${tag}): ${e.message}` };
  }
  // A handler's own failure (failureMode "error"): the tool's error text.
  if (typeof e === "string") return { code: "ToolExecution", message: e, sdkError: `tool handler failure: ${e}` };
  return { code: "Other", message: e instanceof Error ? e.message : JSON.stringify(e), sdkError: String(e?._tag ?? e?.name ?? "") + ": " + (e?.message ?? JSON.stringify(e)) };
}

/**
 * Agent runs turns with one installed Effect version.
 *
 * failureMode: the tools' failureMode, "return" (a failing handler gives
 * the model a failure result) or "error" (it fails the turn).
 */
export class Agent {
  constructor({ sdk, failureMode }) {
    this.sdk = sdk;
    this.failureMode = failureMode;
  }

  // parameters is the tool's JSON Schema as an Effect Schema (the SDK's own
  // JSON Schema import), which the Toolkit validates each call's params
  // against: what an application whose tools have typed parameters gets.
  parameters(schema) {
    const { JsonSchema, SchemaRepresentation } = this.sdk;
    return SchemaRepresentation.fromJsonSchemaDocument(JsonSchema.fromSchemaDraft2020_12(schema ?? { type: "object" }));
  }

  // policy asks the harness whether a call needs approval: an Effect that
  // fails with the policy's error, as an application's policy would. The
  // adapter's own failures (the harness unreachable) are defects.
  policy(t) {
    const { Effect } = this.sdk;
    return (params, ctx) =>
      Effect.gen(function* () {
        const messages = yield* Effect.sync(() => toCanonicalMessages(ctx.messages ?? [], "policy.messages"));
        const r = yield* Effect.promise((signal) => postJSON(t.policyURL, { toolCallId: ctx.toolCallId, input: params ?? null, messages }, signal));
        if (typeof r.error === "string") return yield* Effect.fail(r.error);
        if (typeof r.needsApproval !== "boolean") return yield* Effect.die(new Error("policy callback: needsApproval is not a boolean"));
        return r.needsApproval;
      });
  }

  toolkit(req) {
    const { Tool, Toolkit, Schema, Effect } = this.sdk;
    if (req.toolkit === "absent") return {};
    if (req.toolkit === "empty") return { toolkit: Toolkit.empty, layer: Toolkit.empty.toLayer({}) };
    const tools = [];
    const handlers = {};
    for (const t of req.tools ?? []) {
      const options = {
        parameters: this.parameters(t.inputSchema),
        success: Schema.Unknown,
        failure: Schema.String,
        failureMode: this.failureMode,
      };
      if (t.description !== undefined) options.description = t.description;
      if (t.approval === "always") options.needsApproval = true;
      if (t.approval === "dynamic") options.needsApproval = this.policy(t);
      tools.push(Tool.make(t.name, options));
      handlers[t.name] = (params, ctx) =>
        Effect.gen(function* () {
          const r = yield* Effect.promise((signal) => postJSON(t.executeURL, { toolCallId: ctx.toolCallId, input: params ?? null }, signal));
          if (typeof r.error === "string") return yield* Effect.fail(r.error);
          return r.output;
        });
    }
    const toolkit = Toolkit.make(...tools);
    return { toolkit, layer: toolkit.toLayer(handlers) };
  }

  async turn(req) {
    const { Effect, Layer, Stream, Exit, LanguageModel, Prompt } = this.sdk;
    const policy = req.options?.denialPolicy;
    if (policy && policy !== "independent") {
      return { error: { code: "NotExpressible", message: `denial policy ${policy}: Effect decides each call on its own answer (independent) only` } };
    }
    const hosted = (req.tools ?? []).find((t) => t.providerExecuted);
    if (hosted) {
      return { error: { code: "NotExpressible", message: `the hosted tool ${hosted.name}: Effect's toolkit has no approval flow for tools the provider runs` } };
    }
    const model = makeModel(this.sdk, req.model);
    if (!model) {
      return { error: { code: "NotExpressible", message: `model API ${req.model.api} is not one this adapter points the SDK at` } };
    }
    if (!Array.isArray(req.messages)) {
      return { error: { code: "InvalidMessages", message: "messages: not an array" } };
    }
    // The SDK's own Prompt schema decodes the conversation (Prompt.make
    // throws a SchemaError for a message it refuses).
    let prompt;
    try {
      prompt = Prompt.make(toEffectMessages(req.messages));
    } catch (e) {
      return { error: { code: "InvalidMessages", message: e?.message ?? String(e), sdkError: `${e?.name ?? "Error"}: ${e?.message ?? e}` } };
    }
    const { toolkit, layer } = this.toolkit(req);
    const options = { prompt };
    if (toolkit) options.toolkit = toolkit;
    if (req.options?.concurrency > 0) options.concurrency = req.options.concurrency;

    const provide = (eff) => {
      let e = Effect.provideServiceEffect(eff, LanguageModel.LanguageModel, model);
      if (layer) e = Effect.provide(e, layer);
      return e;
    };

    if (req.mode === "stream") {
      const parts = [];
      const run = Stream.runForEach(LanguageModel.streamText(options), (p) => Effect.sync(() => parts.push(p)));
      const exit = await Effect.runPromiseExit(provide(run));
      const events = parts.map(toCanonicalEvent).filter(Boolean);
      if (Exit.isFailure(exit)) {
        const error = turnErrorOf(this.sdk, exit.cause);
        return { error, events: [...events, { type: "error", code: error.code, message: error.message }] };
      }
      const finish = parts.findLast((p) => p.type === "finish");
      return {
        messages: toCanonicalMessages(Prompt.fromResponseParts(parts).content),
        events,
        finishReason: finish?.reason ?? "unknown",
      };
    }
    const exit = await Effect.runPromiseExit(provide(LanguageModel.generateText(options)));
    if (Exit.isFailure(exit)) return { error: turnErrorOf(this.sdk, exit.cause) };
    const response = exit.value;
    return {
      messages: toCanonicalMessages(Prompt.fromResponseParts(response.content).content),
      finishReason: response.finishReason,
    };
  }
}
