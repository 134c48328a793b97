// A language model of the application's own (the AI SDK's LanguageModelV4
// in ai 7, V3 in ai 6: the same shapes) that forwards each call of the SDK
// to the kit's canonical model API, unchanged: the prompt exactly as the SDK
// hands it to its model, approval parts and result types included, which a
// provider wire would drop. The simulator answers in the canonical model.

import { CanonicalError, toCanonicalOutput } from "./canonical.mjs";

const MODEL_ID = "ack-simulated";

function copy(from, to, keys) {
  for (const k of keys) {
    if (from[k] !== undefined && from[k] !== null) to[k] = from[k];
  }
  return to;
}

function fileData(data) {
  if (typeof data === "string") return data;
  if (data instanceof URL) return data.href;
  if (data instanceof Uint8Array) return Buffer.from(data).toString("base64");
  throw new CanonicalError("a file part's data is neither a string, a URL nor bytes");
}

// promptPart maps one part of the SDK's provider-level prompt. The part and
// output types have the canonical names; nothing is filtered or added but
// the flag the SDK's prompt type lacks: it passes on only the approval
// responses of provider-executed tools, without saying so.
function promptPart(p, where) {
  switch (p.type) {
    case "text":
    case "reasoning":
      return copy(p, { type: p.type, text: p.text }, ["providerOptions"]);
    case "file":
      return copy(p, { type: "file", mediaType: p.mediaType, data: fileData(p.data) }, ["filename", "providerOptions"]);
    case "tool-call":
      return copy(p, { type: "tool-call", toolCallId: p.toolCallId, toolName: p.toolName, input: p.input === undefined ? null : p.input },
        ["providerExecuted", "providerOptions"]);
    case "tool-result":
      return copy(p, { type: "tool-result", toolCallId: p.toolCallId, toolName: p.toolName, output: toCanonicalOutput(p.output, where) },
        ["providerExecuted", "providerOptions"]);
    case "tool-approval-response":
      return copy(p, { type: "tool-approval-response", approvalId: p.approvalId, approved: p.approved, providerExecuted: true },
        ["reason", "providerOptions"]);
  }
  throw new CanonicalError(`${where}.type: the SDK's prompt part type ${JSON.stringify(p.type)} has no canonical form`);
}

/** canonicalRequest is the body of a canonical model call. */
export function canonicalRequest(options, stream) {
  const messages = options.prompt.map((m, i) => {
    const out = { role: m.role };
    out.content = typeof m.content === "string" ? m.content : m.content.map((p, j) => promptPart(p, `prompt[${i}].content[${j}]`));
    return copy(m, out, ["providerOptions"]);
  });
  const body = { messages, stream };
  if (options.tools?.length) {
    body.tools = options.tools.map((t) =>
      t.type === "provider"
        ? copy(t.args ?? {}, { name: t.name, providerExecuted: true }, ["serverLabel"])
        : copy(t, { name: t.name }, ["description", "inputSchema"]));
  }
  const o = copy(options, {}, ["toolChoice", "maxOutputTokens", "temperature", "topP", "topK", "presencePenalty",
    "frequencyPenalty", "stopSequences", "seed", "responseFormat", "reasoning", "providerOptions"]);
  if (Object.keys(o).length > 0) body.options = o;
  return body;
}

const usage = (u) => ({
  inputTokens: { total: u?.inputTokens, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: u?.outputTokens, text: undefined, reasoning: undefined },
});

const finishReason = (r) => ({ unified: r, raw: r });

// replyPart maps one part of a canonical reply to the SDK's content.
function replyPart(p) {
  switch (p.type) {
    case "text":
    case "reasoning":
      return copy(p, { type: p.type, text: p.text }, []);
    case "file":
      return { type: "file", mediaType: p.mediaType, data: p.data };
    case "tool-call":
      return copy(p, { type: "tool-call", toolCallId: p.toolCallId, toolName: p.toolName, input: JSON.stringify(p.input ?? {}) },
        ["providerExecuted"]);
    case "tool-approval-request":
      return { type: "tool-approval-request", approvalId: p.approvalId, toolCallId: p.toolCallId };
    case "tool-result": {
      const o = p.output ?? {};
      return copy(p, { type: "tool-result", toolCallId: p.toolCallId, toolName: p.toolName,
        result: o.type === "execution-denied" ? { type: "execution-denied", reason: o.reason ?? null } : (o.value ?? null),
        isError: o.type === "error-text" || o.type === "error-json" || o.type === "execution-denied" }, ["providerExecuted"]);
    }
  }
  throw new CanonicalError(`the canonical reply's part type ${JSON.stringify(p.type)} is not one this model knows`);
}

/**
 * canonicalModel returns a LanguageModelV4 (ai 7) or V3 (ai 6) whose calls
 * go to {baseURL}/canonical. An error answer is raised as the SDK's own
 * APICallError, with the status and body, as a provider client raises it.
 */
export function canonicalModel(ai, baseURL, specificationVersion) {
  const url = `${baseURL}/canonical`;

  async function call(options, stream) {
    const body = canonicalRequest(options, stream);
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: options.abortSignal,
    });
    if (!res.ok) {
      const text = await res.text();
      let message = text;
      try {
        const e = JSON.parse(text);
        message = e?.error?.message ?? message;
      } catch {
        // the body is not JSON: its text is the message
      }
      throw new ai.APICallError({ message, url, requestBodyValues: body, statusCode: res.status,
        responseHeaders: Object.fromEntries(res.headers), responseBody: text, isRetryable: false });
    }
    return { body, res };
  }

  return {
    specificationVersion,
    provider: "ack.canonical",
    modelId: MODEL_ID,
    supportedUrls: {},

    async doGenerate(options) {
      const { body, res } = await call(options, false);
      const r = await res.json();
      return {
        content: r.content.map(replyPart),
        finishReason: finishReason(r.finishReason),
        usage: usage(r.usage),
        warnings: [],
        request: { body },
        response: { id: undefined, modelId: MODEL_ID, body: r },
      };
    },

    async doStream(options) {
      const { body, res } = await call(options, true);
      const events = sseEvents(res.body);
      let open; // the text or reasoning block being streamed: {kind, id}
      let blocks = 0;
      const started = new Set();
      const stream = new ReadableStream({
        async start(controller) {
          const close = () => {
            if (open) controller.enqueue({ type: `${open.kind}-end`, id: open.id });
            open = undefined;
          };
          controller.enqueue({ type: "stream-start", warnings: [] });
          try {
            for await (const ev of events) {
              switch (ev.type) {
                case "text-delta":
                case "reasoning-delta": {
                  const kind = ev.type === "text-delta" ? "text" : "reasoning";
                  if (open?.kind !== kind) {
                    close();
                    open = { kind, id: `${kind}-${++blocks}` };
                    controller.enqueue({ type: `${kind}-start`, id: open.id });
                  }
                  controller.enqueue({ type: `${kind}-delta`, id: open.id, delta: ev.text });
                  break;
                }
                case "tool-input-start":
                  close();
                  started.add(ev.toolCallId);
                  controller.enqueue({ type: "tool-input-start", id: ev.toolCallId, toolName: ev.toolName });
                  break;
                case "tool-input-delta":
                  controller.enqueue({ type: "tool-input-delta", id: ev.toolCallId, delta: ev.delta });
                  break;
                case "finish":
                  close();
                  controller.enqueue({ type: "finish", finishReason: finishReason(ev.finishReason), usage: usage(ev.usage) });
                  break;
                default:
                  close();
                  if (ev.type === "tool-call" && started.has(ev.toolCallId)) {
                    controller.enqueue({ type: "tool-input-end", id: ev.toolCallId });
                  }
                  controller.enqueue(replyPart(ev));
              }
            }
          } catch (e) {
            controller.enqueue({ type: "error", error: e });
          }
          controller.close();
        },
      });
      return { stream, request: { body }, response: { headers: Object.fromEntries(res.headers) } };
    },
  };
}

// sseEvents yields the JSON data of each server-sent event of a body.
async function* sseEvents(body) {
  const decoder = new TextDecoder();
  let buf = "";
  for await (const chunk of body) {
    buf += decoder.decode(chunk, { stream: true });
    let at;
    while ((at = buf.indexOf("\n\n")) >= 0) {
      const event = buf.slice(0, at);
      buf = buf.slice(at + 2);
      const data = event.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).replace(/^ /, "")).join("\n");
      if (data !== "") yield JSON.parse(data);
    }
  }
}
