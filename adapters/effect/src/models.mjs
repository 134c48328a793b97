// The application's own language models: Effect's LanguageModel.make with
// a provider of the adapter's own for each model API it certifies.
//
// No published OpenAI provider imports cleanly with effect 4.1 (the
// @effect/ai-* packages import effect/unstable/*), and the Chat Completions
// one of the betas (@effect/ai-openai-compat) sends one assistant message
// per function call. So each wire format here is a small provider written
// the way Effect's providers are: the prompt Effect hands its model
// (ProviderOptions.prompt, after the SDK resolved the approvals it holds)
// goes out as the wire format says, the reply comes back as Effect's
// encoded response parts, an error status becomes an AiError whose reason
// is the SDK's own reading of the status (AiError.reasonFromHttpStatus).
//
// - canonical: the kit's lossless model API ({baseURL}/canonical). The
//   prompt goes as it is, approval parts and result types included.
// - openai-chat: OpenAI Chat Completions ({baseURL}/chat/completions). One
//   assistant message holds the text and every call of a turn; each result
//   is a tool message whose content is the result (a string as it is,
//   anything else as JSON, as Effect's OpenAI providers send results).
//   Approval parts and reasoning have no place on this wire and are not
//   sent.

import { CanonicalError, toCanonicalMessages, toCanonicalPart } from "./prompt.mjs";
import { sseEvents } from "../../driver-http/http.mjs";

const MODEL_ID = "ack-simulated";

/**
 * makeModel returns an Effect that builds the LanguageModel service for an
 * endpoint ({baseURL, api}), or undefined for an API the adapter does not
 * speak.
 */
export function makeModel(sdk, endpoint) {
  const provider = { canonical: canonicalProvider, "openai-chat": chatProvider }[endpoint.api];
  if (!provider) return undefined;
  const { generate, stream } = provider(sdk, endpoint.baseURL);
  const { Effect, Stream, AiError } = sdk;
  const aiError = (method, e) => {
    if (AiError.isAiError(e)) return e;
    return AiError.make({ module: "AckModel", method, reason: new AiError.UnknownError({ description: e instanceof Error ? e.message : String(e) }) });
  };
  return sdk.LanguageModel.make({
    generateText: (options) =>
      Effect.tryPromise({ try: (signal) => generate(options, signal), catch: (e) => aiError("generateText", e) }),
    streamText: (options) =>
      Stream.fromAsyncIterable(stream(options), (e) => aiError("streamText", e)),
  });
}

// httpError is an error answer as the SDK's AiError. The HTTP context
// names the request too: the 4.0 betas require it (HttpContext.request),
// and an AiError that fails its own schema would hide the answer's status
// and body behind "Schema validation failed".
function httpError(sdk, method, url, status, text) {
  const { AiError } = sdk;
  let description = text;
  try {
    const e = JSON.parse(text);
    description = e?.error?.message ?? description;
  } catch {
    // not JSON: the body is the description
  }
  return AiError.make({
    module: "AckModel",
    method,
    reason: AiError.reasonFromHttpStatus({
      status,
      description: `${description} (HTTP ${status}: ${text})`,
      http: { request: { method: "POST", url, urlParams: [], headers: {} }, body: text },
    }),
  });
}

async function post(sdk, url, body, method, signal) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer sk-ack" },
    body: JSON.stringify(body),
    signal,
  });
  if (!res.ok) throw httpError(sdk, method, url, res.status, await res.text());
  return res;
}

const toolChoice = (c) => {
  if (c === "auto" || c === "none" || c === "required") return { type: c };
  if (c && typeof c === "object" && "tool" in c) return { type: "tool", toolName: c.tool };
  // {mode, oneOf}: the SDK already left out the tools not in oneOf.
  return { type: c?.mode === "required" ? "required" : "auto" };
};

const usage = (inputTokens, outputTokens) => ({ inputTokens: { total: inputTokens }, outputTokens: { total: outputTokens } });

// ---------------------------------------------------------------------------
// canonical

function canonicalRequest(sdk, options, stream) {
  const { Tool } = sdk;
  const body = { messages: toCanonicalMessages(options.prompt.content, "prompt"), stream };
  if (options.tools.length > 0) {
    body.tools = options.tools.map((t) => {
      const out = { name: t.name, inputSchema: Tool.getJsonSchema(t) };
      const d = Tool.getDescription(t);
      if (d !== undefined) out.description = d;
      return out;
    });
    body.options = { toolChoice: toolChoice(options.toolChoice) };
  }
  return body;
}

// replyPart maps a part of a canonical reply to an encoded response part.
function replyPart(p) {
  switch (p.type) {
    case "text":
    case "reasoning":
      return { type: p.type, text: p.text };
    case "file":
      return { type: "file", mediaType: p.mediaType, data: p.data };
    case "tool-call":
      return { type: "tool-call", id: p.toolCallId, name: p.toolName, params: p.input ?? {}, providerExecuted: p.providerExecuted === true };
    case "tool-approval-request":
      return { type: "tool-approval-request", approvalId: p.approvalId, toolCallId: p.toolCallId };
    case "tool-result": {
      const o = p.output ?? {};
      return {
        type: "tool-result",
        id: p.toolCallId,
        name: p.toolName,
        isFailure: o.type === "error-text" || o.type === "error-json" || o.type === "execution-denied",
        result: o.type === "execution-denied" ? { type: "execution-denied", reason: o.reason } : (o.value ?? null),
        providerExecuted: true,
      };
    }
  }
  throw new CanonicalError(`the canonical reply's part type ${JSON.stringify(p.type)} is not one this model knows`);
}

function canonicalProvider(sdk, baseURL) {
  const url = `${baseURL}/canonical`;
  return {
    async generate(options, signal) {
      const res = await post(sdk, url, canonicalRequest(sdk, options, false), "generateText", signal);
      const r = await res.json();
      return [...r.content.map(replyPart), { type: "finish", reason: r.finishReason, usage: usage(r.usage?.inputTokens, r.usage?.outputTokens) }];
    },
    async *stream(options) {
      const res = await post(sdk, url, canonicalRequest(sdk, options, true), "streamText");
      let open; // the text or reasoning block being streamed: {kind, id}
      let blocks = 0;
      const started = new Set();
      const close = function* () {
        if (open) yield { type: `${open.kind}-end`, id: open.id };
        open = undefined;
      };
      for await (const ev of sseEvents(res.body)) {
        switch (ev.type) {
          case "text-delta":
          case "reasoning-delta": {
            const kind = ev.type === "text-delta" ? "text" : "reasoning";
            if (open?.kind !== kind) {
              yield* close();
              open = { kind, id: `${kind}-${++blocks}` };
              yield { type: `${kind}-start`, id: open.id };
            }
            yield { type: `${kind}-delta`, id: open.id, delta: ev.text };
            break;
          }
          case "tool-input-start":
            yield* close();
            started.add(ev.toolCallId);
            yield { type: "tool-params-start", id: ev.toolCallId, name: ev.toolName };
            break;
          case "tool-input-delta":
            yield { type: "tool-params-delta", id: ev.toolCallId, delta: ev.delta };
            break;
          case "finish":
            yield* close();
            yield { type: "finish", reason: ev.finishReason, usage: usage(ev.usage?.inputTokens, ev.usage?.outputTokens) };
            break;
          default:
            yield* close();
            if (ev.type === "tool-call" && started.has(ev.toolCallId)) yield { type: "tool-params-end", id: ev.toolCallId };
            yield replyPart(ev);
        }
      }
    },
  };
}

// ---------------------------------------------------------------------------
// openai-chat

const resultContent = (result) => (typeof result === "string" ? result : JSON.stringify(result ?? null));

function userContent(parts) {
  return parts.map((p) => {
    if (p.type === "text") return { type: "text", text: p.text };
    if (p.type === "file") {
      const data = toCanonicalPart(p, "file").data;
      const url = /^[a-z]+:/i.test(data) ? data : `data:${p.mediaType};base64,${data}`;
      if (p.mediaType.startsWith("image/")) return { type: "image_url", image_url: { url } };
      return { type: "file", file: { filename: p.fileName ?? "file", file_data: url } };
    }
    throw new CanonicalError(`a user part of type ${p.type} has no Chat Completions form`);
  });
}

/** chatMessages maps an Effect prompt to Chat Completions messages. */
export function chatMessages(prompt) {
  const out = [];
  for (const m of prompt.content) {
    switch (m.role) {
      case "system":
        out.push({ role: "system", content: m.content });
        break;
      case "user":
        out.push({ role: "user", content: typeof m.content === "string" ? m.content : userContent(m.content) });
        break;
      case "assistant": {
        let text = "";
        const calls = [];
        for (const p of m.content) {
          if (p.type === "text") text += p.text;
          if (p.type === "tool-call" && !p.providerExecuted) {
            calls.push({ id: p.id, type: "function", function: { name: p.name, arguments: JSON.stringify(p.params ?? {}) } });
          }
        }
        if (text === "" && calls.length === 0) break;
        const msg = { role: "assistant", content: text === "" ? null : text };
        if (calls.length > 0) msg.tool_calls = calls;
        out.push(msg);
        break;
      }
      case "tool":
        for (const p of m.content) {
          if (p.type === "tool-result") out.push({ role: "tool", tool_call_id: p.id, content: resultContent(p.result) });
        }
        break;
    }
  }
  return out;
}

function chatRequest(sdk, options, stream) {
  const { Tool } = sdk;
  const body = { model: MODEL_ID, messages: chatMessages(options.prompt) };
  if (options.tools.length > 0) {
    body.tools = options.tools.map((t) => {
      const fn = { name: t.name, parameters: Tool.getJsonSchema(t) };
      const d = Tool.getDescription(t);
      if (d !== undefined) fn.description = d;
      return { type: "function", function: fn };
    });
    const c = toolChoice(options.toolChoice);
    body.tool_choice = c.type === "tool" ? { type: "function", function: { name: c.toolName } } : c.type;
  }
  if (stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return body;
}

const finishReasons = { stop: "stop", tool_calls: "tool-calls", function_call: "tool-calls", length: "length", content_filter: "content-filter" };
const finishReason = (r) => finishReasons[r] ?? (r == null ? "unknown" : "other");

function parseArguments(text) {
  try {
    return text === "" ? {} : JSON.parse(text);
  } catch {
    // The SDK validates the parameters against the tool's schema; a
    // string that is not JSON reaches it as the string.
    return text;
  }
}

function chatProvider(sdk, baseURL) {
  const url = `${baseURL}/chat/completions`;
  return {
    async generate(options, signal) {
      const res = await post(sdk, url, chatRequest(sdk, options, false), "generateText", signal);
      const r = await res.json();
      const choice = r.choices?.[0] ?? {};
      const parts = [];
      if (typeof choice.message?.content === "string" && choice.message.content !== "") parts.push({ type: "text", text: choice.message.content });
      for (const c of choice.message?.tool_calls ?? []) {
        parts.push({ type: "tool-call", id: c.id, name: c.function?.name, params: parseArguments(c.function?.arguments ?? ""), providerExecuted: false });
      }
      parts.push({ type: "finish", reason: finishReason(choice.finish_reason), usage: usage(r.usage?.prompt_tokens, r.usage?.completion_tokens) });
      return parts;
    },
    async *stream(options) {
      const res = await post(sdk, url, chatRequest(sdk, options, true), "streamText");
      let text = false;
      const calls = []; // by index: {id, name, arguments}
      let reason;
      let u;
      for await (const chunk of sseEvents(res.body)) {
        if (chunk.usage) u = chunk.usage;
        const choice = chunk.choices?.[0];
        if (!choice) continue;
        const d = choice.delta ?? {};
        if (typeof d.content === "string" && d.content !== "") {
          if (!text) {
            text = true;
            yield { type: "text-start", id: "text-1" };
          }
          yield { type: "text-delta", id: "text-1", delta: d.content };
        }
        for (const tc of d.tool_calls ?? []) {
          let c = calls[tc.index];
          if (!c) {
            if (text) {
              yield { type: "text-end", id: "text-1" };
              text = false;
            }
            c = calls[tc.index] = { id: tc.id, name: tc.function?.name, arguments: "" };
            yield { type: "tool-params-start", id: c.id, name: c.name };
          }
          const delta = tc.function?.arguments ?? "";
          if (delta !== "") {
            c.arguments += delta;
            yield { type: "tool-params-delta", id: c.id, delta };
          }
        }
        if (choice.finish_reason) reason = choice.finish_reason;
      }
      if (text) yield { type: "text-end", id: "text-1" };
      for (const c of calls.filter(Boolean)) {
        yield { type: "tool-params-end", id: c.id };
        yield { type: "tool-call", id: c.id, name: c.name, params: parseArguments(c.arguments), providerExecuted: false };
      }
      yield { type: "finish", reason: finishReason(reason), usage: usage(u?.prompt_tokens, u?.completion_tokens) };
    },
  };
}
