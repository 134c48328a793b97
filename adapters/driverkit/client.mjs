// The client role (docs/driver-protocol.md, Client role): the harness
// opens sessions of the SDK's chat client against a chat server it
// scripts, acts as the user through them, and reads the client's state.
// The kit serves the endpoints, checks every body, bounds the sessions,
// and answers the long-polling waits from the client's own change
// notifications; the adapter maps the SDK's chat client onto a session:
//
//   open({chatURL, protocol, dialect, tools}) -> a session with
//     send(text)                            -> {refused, error?, queued?}
//     approve({approvalId, approved, reason?}) -> {refused, error?}
//     toolOutput({toolCallId, output})      -> {refused, error?}
//     state()                               -> the client's state now ({busy, messages, error?, queued?}), synchronously
//     changes                               -> a Changes the session calls changed() on
//                                              whenever the SDK says its state changed
//     close()                               -> stops the client (optional)

import { randomUUID } from "node:crypto";

import { DEFAULT_DIALECTS } from "./declare.mjs";
import { HTTPError, badRequest, readJSON, sendJSON } from "./http.mjs";
import { checkAction, checkSession } from "./protocol.mjs";

/**
 * Changes tells waiters that a client's state changed. changed() is cheap
 * to call from every notification of the SDK: the waiters' conditions are
 * checked once the SDK's synchronous hand-offs and microtasks of that
 * change have run (setImmediate), never on a timer.
 */
export class Changes {
  constructor() {
    this.waiters = new Set();
    this.scheduled = false;
    this.closed = false;
  }

  changed() {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      for (const w of [...this.waiters]) w();
    });
  }

  /**
   * until resolves once pred() holds at a check (the first check comes
   * after the current microtasks), when timeoutMs passes, or when the
   * session closes; it resolves true when pred held.
   */
  until(pred, timeoutMs) {
    return new Promise((resolve) => {
      let timer;
      const finish = (held) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(held);
      };
      const check = () => {
        if (this.closed) return finish(false);
        if (pred()) finish(true);
      };
      timer = setTimeout(() => finish(false), timeoutMs);
      this.waiters.add(check);
      this.changed();
    });
  }

  close() {
    this.closed = true;
    for (const w of [...this.waiters]) w();
  }
}

/**
 * PartHistory records the states each tool-call part went through, in the
 * order the adapter saw them (a state's `history`): record(key, state)
 * appends a state that differs from the last; of(key) is the list. Key a
 * part by its message and call (a client may hold one call in two parts).
 */
export class PartHistory {
  constructor() {
    this.parts = new Map();
  }

  record(key, state) {
    const h = this.parts.get(key) ?? [];
    if (state !== undefined && h.at(-1) !== state) h.push(state);
    this.parts.set(key, h);
    return h;
  }

  of(key) {
    return [...(this.parts.get(key) ?? [])];
  }
}

/**
 * holds says whether a client's state meets a wait's condition: idle
 * (nothing streaming, nothing queued), or the call toolCallId waiting for
 * approval; orIdle also holds when idle.
 */
export function holds(cond, state) {
  if (cond.orIdle && !state.busy) return true;
  if (cond.until === "idle") return !state.busy;
  return state.messages.some((m) => m.parts.some((p) => p.type === "tool-call" && p.toolCallId === cond.toolCallId && p.state === "approval-requested"));
}

/**
 * speaks checks that a request's protocol and dialect are the ones the
 * adapter declared (a map of protocol to dialect, undefined for the
 * protocol's default), and returns the dialect in effect.
 */
export function speaks(spoken, protocol, dialect, role) {
  if (!Object.hasOwn(spoken, protocol)) throw badRequest(`protocol: this ${role} speaks ${Object.keys(spoken).join(", ")}, not ${protocol}`);
  const want = spoken[protocol] ?? DEFAULT_DIALECTS[protocol];
  const got = dialect || DEFAULT_DIALECTS[protocol];
  if (got !== want) throw badRequest(`dialect: this ${role} speaks ${protocol} in ${want ?? "its only dialect"}, not ${got}`);
  return got;
}

/** ClientRole serves /v1/client/sessions for an adapter's chat client. */
export class ClientRole {
  /**
   * protocols: the protocols the client speaks, each with its dialect
   * (undefined: the default), as info declares them (clientProtocols,
   * clientDialects); open: makes a session; maxSessions: sessions open at
   * once (429 TooManySessions beyond).
   */
  constructor({ protocols, open, maxSessions = 256 }) {
    this.protocols = protocols;
    this.open = open;
    this.maxSessions = maxSessions;
    this.sessions = new Map();
  }

  session(id) {
    const s = this.sessions.get(id);
    if (!s) throw new HTTPError(404, "NotFound", `no client session ${id}`);
    return s;
  }

  /** route serves one request; rest is the path after /v1/client/sessions. */
  async route(req, res, rest) {
    if (rest === "" || rest === "/") {
      if (req.method !== "POST") throw new HTTPError(404, "NotFound", `${req.method} /v1/client/sessions: no such endpoint`);
      const body = await readJSON(req);
      checkSession(body);
      const dialect = speaks(this.protocols, body.protocol, body.dialect, "client");
      if (this.sessions.size >= this.maxSessions) throw new HTTPError(429, "TooManySessions", `${this.sessions.size} client sessions are open, the most this adapter holds`);
      const session = await this.open({ chatURL: body.chatURL, protocol: body.protocol, dialect, tools: body.tools ?? [] });
      const id = randomUUID();
      this.sessions.set(id, session);
      return sendJSON(res, 200, { sessionId: id });
    }
    const m = /^\/([^/]+)(?:\/([a-z-]+))?$/.exec(rest);
    if (!m) throw new HTTPError(404, "NotFound", `no client endpoint ${rest}`);
    const [, id, action] = m;
    const s = this.session(id);
    if (action === undefined && req.method === "DELETE") {
      this.sessions.delete(id);
      s.changes?.close();
      await s.close?.();
      res.writeHead(204);
      return res.end();
    }
    if (action === "state" && req.method === "GET") return sendJSON(res, 200, await s.state());
    if (req.method !== "POST" || !["send", "approval", "tool-output", "wait"].includes(action)) {
      throw new HTTPError(404, "NotFound", `${req.method} ${rest}: no such client endpoint`);
    }
    const a = checkAction(action, await readJSON(req));
    switch (action) {
      case "send":
        return sendJSON(res, 200, await s.send(a.text));
      case "approval":
        return sendJSON(res, 200, await s.approve(a));
      case "tool-output":
        return sendJSON(res, 200, await s.toolOutput(a));
    }
    await s.changes.until(() => holds(a, s.state()), a.timeoutMs);
    return sendJSON(res, 200, await s.state());
  }

  /** close stops every session (the adapter is shutting down). */
  async close() {
    for (const [id, s] of this.sessions) {
      this.sessions.delete(id);
      s.changes?.close();
      await s.close?.();
    }
  }
}
