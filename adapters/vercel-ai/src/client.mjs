// The client role: a session is the ai package's chat class (AbstractChat)
// over a small in-memory state, talking to the harness's chat server through
// the SDK's own UI message stream transport (DefaultChatTransport), and
// continuing by itself when the SDK's own
// lastAssistantMessageIsCompleteWithApprovalResponses says so.

import { randomUUID } from "node:crypto";
import { HTTPError, badRequest, onlyFields, readJSON, sendJSON } from "./http.mjs";

// The SDK's UI tool part states, as the driver protocol names them. The SDK
// has no state before input-streaming (no awaiting-input).
const states = {
  "input-streaming": "input-streaming",
  "input-available": "input-complete",
  "approval-requested": "approval-requested",
  "approval-responded": "approval-responded",
  "output-available": "output-available",
  "output-error": "output-error",
  "output-denied": "output-denied",
};

/** CLIENT_STATES are the tool-call states this client can show. */
export const CLIENT_STATES = Object.values(states);

const isToolPart = (p) => p.type === "dynamic-tool" || (typeof p.type === "string" && p.type.startsWith("tool-"));

/**
 * MemoryState is the chat's state, held in memory, with change
 * notifications: the ChatState interface that the SDK's React and Vue
 * bindings implement over their frameworks' reactive stores.
 */
class MemoryState {
  #status = "ready";
  #error = undefined;
  #messages = [];
  #queued = [];
  constructor(onChange) {
    this.onChange = onChange;
  }
  get status() { return this.#status; }
  set status(s) { this.#status = s; this.onChange(); }
  get error() { return this.#error; }
  set error(e) { this.#error = e; this.onChange(); }
  get messages() { return this.#messages; }
  set messages(m) { this.#messages = m; this.onChange(); }
  get experimental_queuedMessages() { return this.#queued; }
  set experimental_queuedMessages(q) { this.#queued = q; this.onChange(); }
  pushMessage = (m) => { this.#messages = [...this.#messages, m]; this.onChange(); };
  popMessage = () => { this.#messages = this.#messages.slice(0, -1); this.onChange(); };
  replaceMessage = (i, m) => { this.#messages = this.#messages.map((x, j) => (j === i ? m : x)); this.onChange(); };
  snapshot = (thing) => structuredClone(thing);
}

/** Session is one chat client under test. */
class Session {
  constructor(sdk, cfg, queue) {
    const { ai } = sdk;
    this.pending = 0; // adapter actions whose promise has not settled
    // The states each tool part went through, in the order seen. A part is
    // known by its message's id, its call id, and which of the message's
    // parts for that call it is (the SDK can hold a call twice in one
    // message: it looks a call up in the current step only).
    this.history = new Map();
    this.listeners = new Set();
    this.lastError = undefined;
    this.state = new MemoryState(() => this.changed());
    const state = this.state;
    class Chat extends ai.AbstractChat {
      constructor(init) {
        super({ ...init, state });
      }
    }
    const init = {
      id: randomUUID(),
      transport: new ai.DefaultChatTransport({ api: cfg.chatURL }),
      sendAutomaticallyWhen: ai.lastAssistantMessageIsCompleteWithApprovalResponses,
      onError: (e) => { this.lastError = e; },
    };
    if (queue) init.experimental_queue = true;
    this.chat = new Chat(init);
  }

  // changed records the tool-call states and tells the waiters.
  changed() {
    for (const m of this.state.messages) {
      this.eachToolPart(m, (p, key) => {
        const s = states[p.state];
        const h = this.history.get(key) ?? [];
        if (s && h[h.length - 1] !== s) h.push(s);
        this.history.set(key, h);
      });
    }
    for (const l of this.listeners) l();
  }

  // eachToolPart calls fn with each tool part of a message and its key.
  eachToolPart(m, fn) {
    const seen = new Map();
    for (const p of m.parts) {
      if (!isToolPart(p)) continue;
      const k = seen.get(p.toolCallId) ?? 0;
      seen.set(p.toolCallId, k + 1);
      fn(p, JSON.stringify([m.id, p.toolCallId, k]));
    }
  }

  // track counts an action as under way until its promise settles.
  track(promise) {
    this.pending++;
    const done = () => { this.pending--; this.changed(); };
    promise.then(done, (e) => { this.lastError = e; done(); });
    return promise;
  }

  busy() {
    return this.pending > 0 || this.chat.status === "submitted" || this.chat.status === "streaming";
  }

  snapshot() {
    const out = { busy: this.busy(), messages: this.state.messages.map((m) => this.message(m)) };
    const queued = this.state.experimental_queuedMessages;
    if (queued.length > 0) out.queued = queued.map((m) => this.message(m));
    const err = this.chat.error ?? this.lastError;
    if (err) out.error = err.message ?? String(err);
    return out;
  }

  message(m) {
    const keys = new Map();
    this.eachToolPart(m, (p, key) => keys.set(p, key));
    const parts = [];
    for (const p of m.parts) {
      if (p.type === "text") parts.push({ type: "text", text: p.text });
      else if (isToolPart(p)) parts.push(this.toolPart(p, keys.get(p)));
    }
    return { id: m.id, role: m.role, parts };
  }

  toolPart(p, key) {
    const out = {
      type: "tool-call",
      toolCallId: p.toolCallId,
      toolName: p.type === "dynamic-tool" ? p.toolName : p.type.slice("tool-".length),
      state: states[p.state] ?? p.state,
      history: [...(this.history.get(key) ?? [states[p.state] ?? p.state])],
    };
    if (p.input !== undefined) out.input = p.input;
    if (p.output !== undefined) out.output = p.output;
    if (p.errorText !== undefined) out.errorText = p.errorText;
    if (p.providerExecuted) out.providerExecuted = true;
    if (p.approval) {
      out.approval = { id: p.approval.id };
      if (typeof p.approval.approved === "boolean") out.approval.approved = p.approval.approved;
      if (p.approval.reason) out.approval.reason = p.approval.reason;
      if (p.approval.signature) out.approval.signature = p.approval.signature;
    }
    return out;
  }

  // settled resolves on the first change after which pred holds, checked
  // once the microtasks of that change have run (the SDK decides whether to
  // continue in microtasks after its status goes back to ready), or when
  // the signal ends.
  settled(pred, signal) {
    return new Promise((resolve) => {
      let scheduled = false;
      const finish = () => {
        this.listeners.delete(check);
        signal?.removeEventListener("abort", finish);
        resolve();
      };
      const check = () => {
        if (scheduled) return;
        scheduled = true;
        setImmediate(() => {
          scheduled = false;
          if (pred()) finish();
        });
      };
      this.listeners.add(check);
      signal?.addEventListener("abort", finish);
      check();
    });
  }

  async send(text) {
    const before = this.state.messages.length;
    const queuedBefore = this.state.experimental_queuedMessages.length;
    const p = this.track(this.chat.sendMessage({ text }));
    let settled = false;
    p.then(() => { settled = true; }, () => { settled = true; });
    await this.settled(() => settled || this.state.messages.length > before || this.state.experimental_queuedMessages.length > queuedBefore);
    if (this.state.experimental_queuedMessages.length > queuedBefore) {
      return { refused: false, queued: true };
    }
    return { refused: false };
  }

  async approve({ approvalId, approved, reason }) {
    const waiting = this.state.messages.some((m) => m.parts.some((p) => isToolPart(p) && p.state === "approval-requested" && p.approval?.id === approvalId));
    await this.track(this.chat.addToolApprovalResponse({ id: approvalId, approved, ...(reason ? { reason } : {}) }));
    if (!waiting) {
      // The SDK ignores an answer for an approval it does not show as waiting.
      return { refused: true, error: `the client shows no approval request ${approvalId} waiting for an answer; the SDK ignored the answer` };
    }
    return { refused: false };
  }

  async toolOutput({ toolCallId, output }) {
    const part = this.state.messages.flatMap((m) => m.parts).find((p) => isToolPart(p) && p.toolCallId === toolCallId);
    if (!part) return { refused: true, error: `the client holds no tool call ${toolCallId}` };
    const tool = part.type === "dynamic-tool" ? part.toolName : part.type.slice("tool-".length);
    await this.track(this.chat.addToolOutput({ tool, toolCallId, output }));
    return { refused: false };
  }

  holds(until, toolCallId, orIdle) {
    const s = this.snapshot();
    if (orIdle && !s.busy) return true;
    if (until === "idle") return !s.busy;
    if (until === "approval-requested") {
      return s.messages.some((m) => m.parts.some((p) => p.type === "tool-call" && p.toolCallId === toolCallId && p.state === "approval-requested"));
    }
    return false;
  }

  async wait({ until, toolCallId, orIdle, timeoutMs }) {
    const ctl = new AbortController();
    const timer = setTimeout(() => ctl.abort(), Math.max(0, Math.min(timeoutMs ?? 5000, 60000)));
    try {
      await this.settled(() => this.holds(until, toolCallId, orIdle), ctl.signal);
    } finally {
      clearTimeout(timer);
    }
    return this.snapshot();
  }

  async close() {
    await this.chat.stop();
  }
}

/** Clients serves the client role's endpoints. */
export class Clients {
  constructor({ sdk, queue }) {
    this.sdk = sdk;
    this.queue = queue;
    this.sessions = new Map();
  }

  session(id) {
    const s = this.sessions.get(id);
    if (!s) throw new HTTPError(404, "NotFound", `no client session ${id}`);
    return s;
  }

  async route(req, res, rest) {
    if (rest === "" && req.method === "POST") {
      const body = await readJSON(req);
      onlyFields(body, "body", ["chatURL", "protocol", "dialect", "tools"]);
      if (body.protocol !== "ui-message-stream") {
        throw new HTTPError(501, "NotImplemented", `protocol ${body.protocol}: this client speaks ui-message-stream only`);
      }
      if (body.dialect) {
        throw new HTTPError(501, "NotImplemented", `dialect ${body.dialect}: this client speaks the UI message stream as the ai package does`);
      }
      if (typeof body.chatURL !== "string") throw badRequest("chatURL: missing");
      (body.tools ?? []).forEach((t, i) => onlyFields(t, `tools[${i}]`, ["name", "needsApproval", "clientSide"]));
      const id = randomUUID();
      this.sessions.set(id, new Session(this.sdk, body, this.queue));
      return sendJSON(res, 200, { sessionId: id });
    }
    const m = /^\/([^/]+)(?:\/([a-z-]+))?$/.exec(rest);
    if (!m) throw new HTTPError(404, "NotFound", `no such client endpoint ${rest}`);
    const [, id, action] = m;
    const s = this.session(id);
    if (action === undefined && req.method === "DELETE") {
      this.sessions.delete(id);
      await s.close();
      res.writeHead(204);
      return res.end();
    }
    if (action === "state" && req.method === "GET") return sendJSON(res, 200, s.snapshot());
    if (req.method !== "POST") throw new HTTPError(404, "NotFound", `${req.method} ${rest}: no such client endpoint`);
    const body = await readJSON(req);
    switch (action) {
      case "send":
        onlyFields(body, "body", ["text"]);
        if (typeof body.text !== "string") throw badRequest("text: missing");
        return sendJSON(res, 200, await s.send(body.text));
      case "approval":
        onlyFields(body, "body", ["approvalId", "approved", "reason"]);
        if (typeof body.approvalId !== "string") throw badRequest("approvalId: missing");
        if (typeof body.approved !== "boolean") throw badRequest("approved: not a boolean");
        return sendJSON(res, 200, await s.approve(body));
      case "tool-output":
        onlyFields(body, "body", ["toolCallId", "output"]);
        if (typeof body.toolCallId !== "string") throw badRequest("toolCallId: missing");
        return sendJSON(res, 200, await s.toolOutput(body));
      case "wait":
        onlyFields(body, "body", ["until", "toolCallId", "orIdle", "timeoutMs"]);
        if (!["idle", "approval-requested"].includes(body.until)) throw badRequest(`until: want idle or approval-requested`);
        return sendJSON(res, 200, await s.wait(body));
    }
    throw new HTTPError(404, "NotFound", `${req.method} ${rest}: no such client endpoint`);
  }
}
