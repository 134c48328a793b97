// A language model of the application's own (the AI SDK's LanguageModelV2,
// the interface Mastra's models implement) that forwards each call to the
// kit's canonical model API, unchanged: the prompt as Mastra hands it to
// its model (its messages, part and output types have the canonical names).

import { CanonicalError, callCanonical } from "../../driverkit/index.mjs";

const MODEL_ID = "ack-simulated";

function copy(from, to, keys) {
  for (const k of keys) if (from[k] !== undefined && from[k] !== null) to[k] = from[k];
  return to;
}

function promptPart(p, where) {
  switch (p.type) {
    case "text":
    case "reasoning":
      return { type: p.type, text: p.text };
    case "file":
      return copy(p, { type: "file", mediaType: p.mediaType, data: typeof p.data === "string" ? p.data : p.data instanceof URL ? p.data.href : Buffer.from(p.data).toString("base64") }, ["filename"]);
    case "tool-call":
      return copy(p, { type: "tool-call", toolCallId: p.toolCallId, toolName: p.toolName, input: p.input === undefined ? null : p.input }, ["providerExecuted"]);
    case "tool-result": {
      const o = p.output ?? {};
      if (!["json", "text", "error-text", "error-json"].includes(o.type)) throw new CanonicalError(`${where}.output: type ${JSON.stringify(o.type)} has no canonical form`);
      return copy(p, { type: "tool-result", toolCallId: p.toolCallId, toolName: p.toolName, output: { type: o.type, value: o.value === undefined ? null : o.value } }, ["providerExecuted"]);
    }
  }
  throw new CanonicalError(`${where}.type: the prompt part type ${JSON.stringify(p.type)} has no canonical form`);
}

/** canonicalRequest is the body of a canonical model call. */
export function canonicalRequest(options, stream) {
  const messages = options.prompt.map((m, i) => ({
    role: m.role,
    content: typeof m.content === "string" ? m.content : m.content.map((p, j) => promptPart(p, `prompt[${i}].content[${j}]`)),
  }));
  const body = { messages, stream };
  if (options.tools?.length) {
    body.tools = options.tools.map((t) => {
      if (t.type !== "function") throw new CanonicalError(`a tool of type ${t.type} has no canonical form`);
      return copy(t, { name: t.name }, ["description", "inputSchema"]);
    });
  }
  const o = copy(options, {}, ["toolChoice", "maxOutputTokens", "temperature", "topP", "topK", "presencePenalty", "frequencyPenalty", "stopSequences", "seed"]);
  if (Object.keys(o).length > 0) body.options = o;
  return body;
}

function replyPart(p) {
  switch (p.type) {
    case "text":
    case "reasoning":
      return { type: p.type, text: p.text };
    case "tool-call":
      return { type: "tool-call", toolCallId: p.toolCallId, toolName: p.toolName, input: JSON.stringify(p.input ?? {}) };
  }
  throw new CanonicalError(`the canonical reply's part type ${JSON.stringify(p.type)} is not one this model knows`);
}

const usage = (u) => ({ inputTokens: u?.inputTokens, outputTokens: u?.outputTokens, totalTokens: (u?.inputTokens ?? 0) + (u?.outputTokens ?? 0) });

/**
 * canonicalModel returns a LanguageModelV2 whose calls go to
 * {baseURL}/canonical; an error answer is the AI SDK's APICallError with
 * the status and body, as a provider package raises it.
 */
export function canonicalModel(APICallError, baseURL) {
  async function call(options, stream) {
    const body = canonicalRequest(options, stream);
    const error = ({ status, body: text, url, headers }) => {
      let message = text;
      try {
        message = JSON.parse(text)?.error?.message ?? message;
      } catch {
        // not JSON: the body is the message
      }
      return new APICallError({ message, url, requestBodyValues: body, statusCode: status, responseHeaders: Object.fromEntries(headers), responseBody: text, isRetryable: false });
    };
    return { body, reply: await callCanonical(baseURL, body, { signal: options.abortSignal, error }) };
  }
  return {
    specificationVersion: "v2",
    provider: "ack.canonical",
    modelId: MODEL_ID,
    supportedUrls: {},
    async doGenerate(options) {
      const { body, reply: r } = await call(options, false);
      return { content: r.content.map(replyPart), finishReason: r.finishReason, usage: usage(r.usage), warnings: [], request: { body }, response: { modelId: MODEL_ID, body: r } };
    },
    async doStream(options) {
      const { body, reply: events } = await call(options, true);
      let open;
      let blocks = 0;
      const started = new Set();
      const stream = new ReadableStream({
        async start(c) {
          const close = () => {
            if (open) c.enqueue({ type: `${open.kind}-end`, id: open.id });
            open = undefined;
          };
          c.enqueue({ type: "stream-start", warnings: [] });
          try {
            for await (const ev of events) {
              switch (ev.type) {
                case "text-delta":
                case "reasoning-delta": {
                  const kind = ev.type === "text-delta" ? "text" : "reasoning";
                  if (open?.kind !== kind) {
                    close();
                    open = { kind, id: `${kind}-${++blocks}` };
                    c.enqueue({ type: `${kind}-start`, id: open.id });
                  }
                  c.enqueue({ type: `${kind}-delta`, id: open.id, delta: ev.text });
                  break;
                }
                case "tool-input-start":
                  close();
                  started.add(ev.toolCallId);
                  c.enqueue({ type: "tool-input-start", id: ev.toolCallId, toolName: ev.toolName });
                  break;
                case "tool-input-delta":
                  c.enqueue({ type: "tool-input-delta", id: ev.toolCallId, delta: ev.delta });
                  break;
                case "finish":
                  close();
                  c.enqueue({ type: "finish", finishReason: ev.finishReason, usage: usage(ev.usage) });
                  break;
                default:
                  close();
                  if (ev.type === "tool-call" && started.has(ev.toolCallId)) c.enqueue({ type: "tool-input-end", id: ev.toolCallId });
                  c.enqueue(replyPart(ev));
              }
            }
          } catch (e) {
            c.enqueue({ type: "error", error: e });
          }
          c.close();
        },
      });
      return { stream, request: { body } };
    },
  };
}
