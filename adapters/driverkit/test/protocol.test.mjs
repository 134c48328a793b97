import { test } from "node:test";
import assert from "node:assert/strict";

import { HTTPError, MAX_WAIT_MS, checkAction, checkChat, checkSession, checkTurn } from "../index.mjs";

const turn = () => ({
  mode: "stream",
  model: { baseURL: "http://127.0.0.1:1/v1", api: "openai-chat" },
  tools: [
    { name: "deleteFile", description: "d", inputSchema: { type: "object" }, approval: "dynamic", executeURL: "http://127.0.0.1:2/x", policyURL: "http://127.0.0.1:2/p" },
    { name: "web", approval: "never", providerExecuted: true, serverLabel: "web" },
  ],
  toolkit: "provided",
  options: { concurrency: 2, maxSteps: 5, denialPolicy: "independent", replayLedger: 1 },
  messages: [{ role: "user", content: "hi" }],
  conversation: "c1",
  state: { anything: true },
});

// refuses runs check on a copy of the turn changed by change, and wants a
// 400 BadRequest whose message starts with the field.
function refuses(change, field) {
  const t = turn();
  change(t);
  assert.throws(() => checkTurn(t), (e) => e instanceof HTTPError && e.status === 400 && e.code === "BadRequest" && e.message.startsWith(field), `want a refusal naming ${field}`);
}

test("checkTurn accepts a whole turn request", () => {
  checkTurn(turn());
});

test("checkTurn ignores fields it does not know (a newer harness adds them)", () => {
  const t = turn();
  t.newField = 1;
  t.tools[0].newField = "x";
  t.options.newOption = 3;
  t.model.newModelField = true;
  checkTurn(t);
});

test("checkTurn leaves the messages to the SDK (malformed on purpose in some scenarios)", () => {
  const t = turn();
  t.messages = [{ role: "tool", content: [{ type: "tool-approval-response", approvalId: 7, approved: "yes" }] }];
  checkTurn(t);
  t.messages = "not even a list";
  checkTurn(t);
});

test("checkTurn refuses what it knows to be wrong, naming the field", () => {
  refuses((t) => (t.mode = "batch"), "mode");
  refuses((t) => delete t.model, "model");
  refuses((t) => (t.model.baseURL = "file:///etc"), "model.baseURL");
  refuses((t) => (t.model.api = 3), "model.api");
  refuses((t) => (t.toolkit = "none"), "toolkit");
  refuses((t) => (t.tools = {}), "tools");
  refuses((t) => (t.tools[1].name = "deleteFile"), "tools[1].name");
  refuses((t) => (t.tools[0].name = ""), "tools[0].name");
  refuses((t) => (t.tools[0].approval = "sometimes"), "tools[0].approval");
  refuses((t) => delete t.tools[0].policyURL, "tools[0].policyURL");
  refuses((t) => (t.tools[0].executeURL = 5), "tools[0].executeURL");
  refuses((t) => (t.tools[0].inputSchema = []), "tools[0].inputSchema");
  refuses((t) => (t.tools[1].providerExecuted = "yes"), "tools[1].providerExecuted");
  refuses((t) => (t.options.maxSteps = -1), "options.maxSteps");
  refuses((t) => (t.options.concurrency = 1.5), "options.concurrency");
  refuses((t) => (t.options = []), "options");
  refuses((t) => (t.conversation = 1), "conversation");
});

test("checkTurn takes no tools and no options", () => {
  const t = turn();
  delete t.tools;
  delete t.options;
  checkTurn(t);
  t.tools = null;
  checkTurn(t);
});

test("checkChat checks a chat request as a turn's, less the mode and messages", () => {
  const c = { protocol: "ui-message-stream", model: turn().model, tools: turn().tools, options: {}, conversation: "x", unknown: 1 };
  checkChat(c);
  assert.throws(() => checkChat({ ...c, protocol: "" }), /^BadRequest|protocol/);
  assert.throws(() => checkChat({ ...c, tools: [{ name: "a", approval: "dynamic" }] }), /tools\[0\]\.policyURL/);
});

test("checkSession checks a session request", () => {
  checkSession({ chatURL: "http://127.0.0.1:3/chat", protocol: "ag-ui", tools: [{ name: "a", needsApproval: true, clientSide: false }] });
  checkSession({ chatURL: "http://127.0.0.1:3/chat", protocol: "ag-ui", tools: null });
  assert.throws(() => checkSession({ chatURL: "ftp://x", protocol: "ag-ui" }), /chatURL/);
  assert.throws(() => checkSession({ chatURL: "http://x", protocol: "ag-ui", tools: [{ needsApproval: true }] }), /tools\[0\]\.name/);
  assert.throws(() => checkSession({ chatURL: "http://x", protocol: "ag-ui", tools: [{ name: "a", clientSide: 1 }] }), /tools\[0\]\.clientSide/);
});

test("checkAction returns what each action takes", () => {
  assert.deepEqual(checkAction("send", { text: "hi", extra: 1 }), { text: "hi" });
  assert.deepEqual(checkAction("approval", { approvalId: "a", approved: false, reason: "no" }), { approvalId: "a", approved: false, reason: "no" });
  assert.deepEqual(checkAction("approval", { approvalId: "a", approved: true }), { approvalId: "a", approved: true });
  assert.deepEqual(checkAction("tool-output", { toolCallId: "c", output: null }), { toolCallId: "c", output: null });
  assert.throws(() => checkAction("approval", { approvalId: "a", approved: "yes" }), /^.*approved: want a boolean/);
  assert.throws(() => checkAction("approval", { approvalId: "", approved: true }), /approvalId: empty/);
  assert.throws(() => checkAction("tool-output", { toolCallId: "c" }), /output: missing/);
  assert.throws(() => checkAction("send", {}), /text/);
});

test("checkAction bounds a wait: 5 s when not given, never more than MAX_WAIT_MS", () => {
  assert.deepEqual(checkAction("wait", { until: "idle" }), { until: "idle", toolCallId: undefined, orIdle: false, timeoutMs: 5000 });
  assert.equal(checkAction("wait", { until: "idle", timeoutMs: 10 * MAX_WAIT_MS }).timeoutMs, MAX_WAIT_MS);
  assert.equal(checkAction("wait", { until: "approval-requested", toolCallId: "c", orIdle: true, timeoutMs: 0 }).timeoutMs, 0);
  assert.throws(() => checkAction("wait", { until: "approval-requested" }), /toolCallId/);
  assert.throws(() => checkAction("wait", { until: "done" }), /until: want idle or approval-requested/);
  assert.throws(() => checkAction("wait", { until: "idle", timeoutMs: -1 }), /timeoutMs/);
});
