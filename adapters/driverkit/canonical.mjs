// The client side of the kit's canonical model API ({model.baseURL}/canonical,
// docs/driver-protocol.md, The canonical model API): for an adapter whose
// SDK lets an application plug in a model of its own. The plugin maps the
// SDK's prompt to canonical messages (nothing filtered, nothing added),
// calls callCanonical, and maps the reply back to the SDK's model output.

import { sseEvents } from "./http.mjs";

/**
 * ModelHTTPError is an error answer of the canonical model API: the
 * scripted model error of a scenario, with the provider's status and body.
 * A plugin whose SDK has an error class of its own for a provider's error
 * answer raises that instead (callCanonical's `error` option).
 */
export class ModelHTTPError extends Error {
  constructor(status, body) {
    super(`canonical model: HTTP ${status}: ${body}`);
    this.status = status;
    this.body = body;
  }
}

/** canonicalURL is where a turn's canonical model answers: {baseURL}/canonical. */
export function canonicalURL(baseURL) {
  return `${baseURL.replace(/\/$/, "")}/canonical`;
}

/**
 * callCanonical posts one model call ({messages, tools?, options?, stream})
 * to the canonical model API of baseURL. It returns the reply
 * ({content, finishReason, usage}) or, when body.stream is true, an async
 * iterator of the stream's events (text-delta, reasoning-delta,
 * tool-input-start, tool-input-delta, whole parts, finish). An error answer
 * throws error({status, body, url, headers}) when that option is given,
 * else ModelHTTPError.
 */
export async function callCanonical(baseURL, body, { signal, error } = {}) {
  const url = canonicalURL(baseURL);
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal });
  if (!res.ok) {
    const text = await res.text();
    throw error ? error({ status: res.status, body: text, url, headers: res.headers }) : new ModelHTTPError(res.status, text);
  }
  return body.stream ? sseEvents(res.body) : res.json();
}

/**
 * ReplyBuilder gathers a streamed reply into the reply a whole call
 * answers: add(event) for each event; then content (text and reasoning
 * deltas joined into parts, whole parts as they came), finishReason and
 * usage.
 */
export class ReplyBuilder {
  constructor() {
    this.content = [];
    this.finishReason = undefined;
    this.usage = undefined;
  }

  add(ev) {
    switch (ev.type) {
      case "text-delta":
      case "reasoning-delta": {
        const type = ev.type === "text-delta" ? "text" : "reasoning";
        const last = this.content.at(-1);
        if (last?.type === type) last.text += ev.text;
        else this.content.push({ type, text: ev.text });
        return;
      }
      case "tool-input-start":
      case "tool-input-delta":
        return;
      case "finish":
        this.finishReason = ev.finishReason;
        this.usage = ev.usage;
        return;
    }
    this.content.push(ev);
  }
}
