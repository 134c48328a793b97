import { test } from "node:test";
import assert from "node:assert/strict";

import { Changes, ClientRole, PartHistory, holds, serve } from "../index.mjs";
import { request } from "./helpers.mjs";

const info = { name: "c", version: "1", roles: ["client"], features: { clientProtocols: ["ag-ui"], clientDialects: { "ag-ui": "tanstack-ai-0.58" } } };

// FakeSession is a chat client under test: its state is what the test
// sets; every action is recorded.
class FakeSession {
  constructor(cfg) {
    this.cfg = cfg;
    this.changes = new Changes();
    this.actions = [];
    this.busy = true;
    this.closed = false;
    this.onState = undefined;
  }
  send(text) {
    this.actions.push(["send", text]);
    return { refused: false, queued: true };
  }
  approve(a) {
    this.actions.push(["approve", a]);
    return { refused: true, error: "no such approval" };
  }
  toolOutput(a) {
    this.actions.push(["tool-output", a]);
    return { refused: false };
  }
  state() {
    this.onState?.();
    return { busy: this.busy, messages: [] };
  }
  close() {
    this.closed = true;
  }
}

async function start(t, opts = {}) {
  const sessions = [];
  const client = new ClientRole({ protocols: { "ag-ui": "tanstack-ai-0.58" }, open: (cfg) => { const s = new FakeSession(cfg); sessions.push(s); return s; }, ...opts });
  const srv = await serve({ info, client, listen: "127.0.0.1:0", trace: "" });
  t.after(srv.close);
  const open = () => request("POST", `${srv.url}/v1/client/sessions`, { chatURL: "http://127.0.0.1:9/chat", protocol: "ag-ui" });
  return { url: srv.url, sessions, open };
}

test("a session opens with its request, and each action reaches it", async (t) => {
  const c = await start(t);
  const created = await c.open();
  assert.equal(created.status, 200);
  const id = created.body.sessionId;
  const s = c.sessions[0];
  assert.deepEqual(s.cfg, { chatURL: "http://127.0.0.1:9/chat", protocol: "ag-ui", dialect: "tanstack-ai-0.58", tools: [] });
  const at = `${c.url}/v1/client/sessions/${id}`;
  assert.deepEqual((await request("POST", `${at}/send`, { text: "hi" })).body, { refused: false, queued: true });
  assert.deepEqual((await request("POST", `${at}/approval`, { approvalId: "a", approved: false, reason: "no" })).body, { refused: true, error: "no such approval" });
  assert.deepEqual((await request("POST", `${at}/tool-output`, { toolCallId: "c", output: { x: 1 } })).body, { refused: false });
  assert.deepEqual(s.actions, [["send", "hi"], ["approve", { approvalId: "a", approved: false, reason: "no" }], ["tool-output", { toolCallId: "c", output: { x: 1 } }]]);
  assert.deepEqual((await request("GET", `${at}/state`)).body, { busy: true, messages: [] });
  assert.equal((await request("POST", `${at}/approval`, { approvalId: "a" })).status, 400);
  assert.equal((await request("POST", `${at}/dance`, {})).status, 404);
  assert.equal((await request("DELETE", at)).status, 204);
  assert.ok(s.closed);
  assert.equal((await request("GET", `${at}/state`)).status, 404);
});

test("a session in another protocol or dialect is refused", async (t) => {
  const c = await start(t);
  const post = (body) => request("POST", `${c.url}/v1/client/sessions`, { chatURL: "http://127.0.0.1:9/chat", ...body });
  const other = await post({ protocol: "ui-message-stream" });
  assert.equal(other.status, 400);
  assert.match(other.body.error.message, /^protocol: this client speaks ag-ui, not ui-message-stream/);
  const dialect = await post({ protocol: "ag-ui", dialect: "tanstack-ai-0.6" });
  assert.equal(dialect.status, 400);
  assert.match(dialect.body.error.message, /^dialect: this client speaks ag-ui in tanstack-ai-0.58, not tanstack-ai-0.6/);
  // The default dialect is named or not, the same.
  assert.equal((await post({ protocol: "ag-ui", dialect: "tanstack-ai-0.58" })).status, 200);
  assert.equal(c.sessions.length, 1);
});

test("sessions past the bound are refused with 429 TooManySessions", async (t) => {
  const c = await start(t, { maxSessions: 1 });
  assert.equal((await c.open()).status, 200);
  const second = await c.open();
  assert.equal(second.status, 429);
  assert.equal(second.body.error.code, "TooManySessions");
});

test("a wait answers once the client's change makes its condition hold", async (t) => {
  const c = await start(t);
  const id = (await c.open()).body.sessionId;
  const s = c.sessions[0];
  // The first look at the state happens once the wait is held: the client
  // then goes idle and says so.
  let looked = 0;
  s.onState = () => {
    if (++looked === 1) {
      s.busy = false;
      s.changes.changed();
    }
  };
  const got = await request("POST", `${c.url}/v1/client/sessions/${id}/wait`, { until: "idle", timeoutMs: 60000 });
  assert.deepEqual(got.body, { busy: false, messages: [] });
  assert.ok(looked >= 2);
});

test("a wait whose condition never holds answers the state at its timeout", async (t) => {
  const c = await start(t);
  const id = (await c.open()).body.sessionId;
  const got = await request("POST", `${c.url}/v1/client/sessions/${id}/wait`, { until: "approval-requested", toolCallId: "c1", timeoutMs: 1 });
  assert.deepEqual(got.body, { busy: true, messages: [] });
});

test("holds reads a wait's condition off the client's state", () => {
  const part = (state) => ({ busy: true, messages: [{ id: "m", role: "assistant", parts: [{ type: "tool-call", toolCallId: "c1", state }] }] });
  assert.equal(holds({ until: "approval-requested", toolCallId: "c1" }, part("approval-requested")), true);
  assert.equal(holds({ until: "approval-requested", toolCallId: "c2" }, part("approval-requested")), false);
  assert.equal(holds({ until: "approval-requested", toolCallId: "c1" }, part("input-streaming")), false);
  assert.equal(holds({ until: "approval-requested", toolCallId: "c1", orIdle: true }, { ...part("input-streaming"), busy: false }), true);
  assert.equal(holds({ until: "idle" }, { busy: true, messages: [] }), false);
});

test("Changes.until ends when the session closes", async () => {
  const ch = new Changes();
  const waiting = ch.until(() => false, 60000);
  ch.close();
  assert.equal(await waiting, false);
});

test("PartHistory keeps each part's states in order, without repeats", () => {
  const h = new PartHistory();
  for (const s of ["input-streaming", "input-streaming", "input-complete", "approval-requested"]) h.record("m/c1", s);
  h.record("m/c2", "input-complete");
  assert.deepEqual(h.of("m/c1"), ["input-streaming", "input-complete", "approval-requested"]);
  assert.deepEqual(h.of("m/c2"), ["input-complete"]);
  assert.deepEqual(h.of("nothing"), []);
});
