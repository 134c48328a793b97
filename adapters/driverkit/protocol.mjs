// What the harness sends, checked before an adapter gives it to its SDK.
//
// The protocol's rule (docs/driver-protocol.md, Versioning): an adapter
// ignores fields it does not know in what the harness sends (a newer
// harness adds optional fields to v1), and refuses what it knows to be
// wrong: a known field of the wrong type, an unknown mode, toolkit or
// approval, a tool named twice. Each refusal is a 400 BadRequest naming the
// field. The conversation itself (`messages`) is not checked here: some
// scenarios send malformed messages on purpose, and refusing them is the
// SDK's job (a turn error, InvalidMessages), not the adapter's.

import { badRequest } from "./http.mjs";

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

function object(v, where) {
  if (!isObject(v)) throw badRequest(`${where}: want an object`);
  return v;
}

/** either lists choices as a sentence: "a, b or c". */
export const either = (choices) => (choices.length > 1 ? `${choices.slice(0, -1).join(", ")} or ${choices.at(-1)}` : `${choices[0]}`);

function oneOf(v, where, allowed) {
  if (!allowed.includes(v)) throw badRequest(`${where}: want ${either(allowed)}, got ${JSON.stringify(v) ?? "nothing"}`);
}

function string(v, where, { optional = false, nonEmpty = false } = {}) {
  if (v === undefined && optional) return;
  if (typeof v !== "string") throw badRequest(`${where}: want a string, got ${JSON.stringify(v) ?? "nothing"}`);
  if (nonEmpty && v === "") throw badRequest(`${where}: empty`);
}

function url(v, where, { optional = false } = {}) {
  if (v === undefined && optional) return;
  string(v, where);
  if (!/^https?:\/\//.test(v)) throw badRequest(`${where}: want an http or https URL, got ${JSON.stringify(v)}`);
}

function boolean(v, where) {
  if (v !== undefined && typeof v !== "boolean") throw badRequest(`${where}: want a boolean, got ${JSON.stringify(v)}`);
}

function count(v, where) {
  if (v !== undefined && !(Number.isInteger(v) && v >= 0)) throw badRequest(`${where}: want a whole number of 0 or more, got ${JSON.stringify(v)}`);
}

/** checkModel checks a turn's or a chat's model endpoint: {baseURL, api}. */
export function checkModel(model, where = "model") {
  object(model, where);
  url(model.baseURL, `${where}.baseURL`);
  string(model.api, `${where}.api`, { nonEmpty: true });
}

/**
 * checkTools checks the tools of a turn or a chat: each an object with a
 * name (once), an approval (always, never, dynamic: with its policyURL),
 * and its optional fields of the right types.
 */
export function checkTools(tools, where = "tools") {
  if (tools === undefined || tools === null) return;
  if (!Array.isArray(tools)) throw badRequest(`${where}: want an array`);
  const names = new Set();
  tools.forEach((t, i) => {
    const at = `${where}[${i}]`;
    object(t, at);
    string(t.name, `${at}.name`, { nonEmpty: true });
    if (names.has(t.name)) throw badRequest(`${at}.name: ${t.name} is named twice`);
    names.add(t.name);
    oneOf(t.approval, `${at}.approval`, ["always", "never", "dynamic"]);
    if (t.approval === "dynamic" && t.policyURL === undefined) throw badRequest(`${at}.policyURL: missing for a dynamic tool`);
    url(t.policyURL, `${at}.policyURL`, { optional: true });
    url(t.executeURL, `${at}.executeURL`, { optional: true });
    string(t.description, `${at}.description`, { optional: true });
    if (t.inputSchema !== undefined) object(t.inputSchema, `${at}.inputSchema`);
    boolean(t.providerExecuted, `${at}.providerExecuted`);
    string(t.serverLabel, `${at}.serverLabel`, { optional: true });
  });
}

/** checkOptions checks a turn's or a chat's options. */
export function checkOptions(options, where = "options") {
  if (options === undefined) return;
  object(options, where);
  count(options.concurrency, `${where}.concurrency`);
  count(options.maxSteps, `${where}.maxSteps`);
  count(options.replayLedger, `${where}.replayLedger`);
  string(options.denialPolicy, `${where}.denialPolicy`, { optional: true });
}

/** checkTurn checks a turn request (POST /v1/agent/turn) before the SDK sees it. */
export function checkTurn(body) {
  object(body, "body");
  oneOf(body.mode, "mode", ["generate", "stream"]);
  checkModel(body.model);
  oneOf(body.toolkit, "toolkit", ["provided", "absent", "empty"]);
  checkTools(body.tools);
  checkOptions(body.options);
  string(body.conversation, "conversation", { optional: true });
}

/** checkChat checks a chat request of the server role (POST /v1/server/chats). */
export function checkChat(body) {
  object(body, "body");
  string(body.protocol, "protocol", { nonEmpty: true });
  string(body.dialect, "dialect", { optional: true });
  checkModel(body.model);
  checkTools(body.tools);
  checkOptions(body.options);
  string(body.conversation, "conversation", { optional: true });
}

/** checkSession checks a session request of the client role (POST /v1/client/sessions). */
export function checkSession(body) {
  object(body, "body");
  url(body.chatURL, "chatURL");
  string(body.protocol, "protocol", { nonEmpty: true });
  string(body.dialect, "dialect", { optional: true });
  const tools = body.tools ?? [];
  if (!Array.isArray(tools)) throw badRequest("tools: want an array");
  tools.forEach((t, i) => {
    object(t, `tools[${i}]`);
    string(t.name, `tools[${i}].name`, { nonEmpty: true });
    boolean(t.needsApproval, `tools[${i}].needsApproval`);
    boolean(t.clientSide, `tools[${i}].clientSide`);
  });
}

/** The longest a wait is held (a minute), whatever timeoutMs asks. */
export const MAX_WAIT_MS = 60_000;

/**
 * checkAction checks the body of a session action (send, approval,
 * tool-output, wait) and returns what the action takes; a wait's
 * timeoutMs is bounded by MAX_WAIT_MS (5 s when absent).
 */
export function checkAction(action, body) {
  object(body, "body");
  switch (action) {
    case "send":
      string(body.text, "text");
      return { text: body.text };
    case "approval":
      string(body.approvalId, "approvalId", { nonEmpty: true });
      if (typeof body.approved !== "boolean") throw badRequest(`approved: want a boolean, got ${JSON.stringify(body.approved) ?? "nothing"}`);
      string(body.reason, "reason", { optional: true });
      return { approvalId: body.approvalId, approved: body.approved, ...(body.reason !== undefined ? { reason: body.reason } : {}) };
    case "tool-output":
      string(body.toolCallId, "toolCallId", { nonEmpty: true });
      if (!("output" in body)) throw badRequest("output: missing");
      return { toolCallId: body.toolCallId, output: body.output };
    case "wait": {
      oneOf(body.until, "until", ["idle", "approval-requested"]);
      if (body.until === "approval-requested") string(body.toolCallId, "toolCallId", { nonEmpty: true });
      boolean(body.orIdle, "orIdle");
      count(body.timeoutMs, "timeoutMs");
      const timeoutMs = Math.min(body.timeoutMs ?? 5000, MAX_WAIT_MS);
      return { until: body.until, toolCallId: body.toolCallId, orIdle: body.orIdle === true, timeoutMs };
    }
  }
  throw badRequest(`${action}: no such action`);
}
