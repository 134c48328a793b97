import { test } from "node:test";
import assert from "node:assert/strict";

import { CanonicalError, NotExpressible, agentTurn, eventsOf, failedTurn, trailingAnswers, turnError, withFinish } from "../index.mjs";

const info = { features: { modelAPIs: ["openai-chat", "canonical"], denialPolicy: "independent", denialPolicies: ["abort-remaining"] } };
const req = (change = {}) => ({ mode: "generate", model: { baseURL: "http://x/v1", api: "openai-chat" }, toolkit: "provided", options: {}, messages: [], ...change });

// agent records the turns it is given and answers with answer(req).
const agent = (answer) => ({ seen: [], async turn(r) { this.seen.push(r); return answer(r); } });

test("agentTurn gives the SDK mapping a declared turn and answers what it answers", async () => {
  const a = agent(() => ({ messages: [], finishReason: "stop" }));
  assert.deepEqual(await agentTurn(a, req(), info), { messages: [], finishReason: "stop" });
  assert.equal(a.seen.length, 1);
});

test("agentTurn answers NotExpressible for a model API or denial policy not declared, before the SDK sees the turn", async () => {
  const a = agent(() => assert.fail("the SDK saw the turn"));
  const api = await agentTurn(a, req({ model: { baseURL: "http://x/v1", api: "anthropic-messages" } }), info);
  assert.equal(api.error.code, "NotExpressible");
  assert.match(api.error.message, /model\.api anthropic-messages is not among the declared modelAPIs \(openai-chat, canonical\)/);
  const policy = await agentTurn(a, req({ options: { denialPolicy: "first-wins" } }), info);
  assert.equal(policy.error.code, "NotExpressible");
  assert.match(policy.error.message, /denial policy first-wins/);
  // The three provider wires when modelAPIs is not declared.
  const none = await agentTurn(a, req({ model: { baseURL: "http://x/v1", api: "canonical" } }), { features: {} });
  assert.equal(none.error.code, "NotExpressible");
});

test("agentTurn runs the declared denial policies", async () => {
  const a = agent(() => ({ messages: [], finishReason: "stop" }));
  assert.equal((await agentTurn(a, req({ options: { denialPolicy: "abort-remaining" } }), info)).finishReason, "stop");
  assert.equal((await agentTurn(a, req({ options: { denialPolicy: "independent" } }), info)).finishReason, "stop");
});

test("agentTurn answers InvalidMessages for messages that are not a list", async () => {
  const got = await agentTurn(agent(() => assert.fail("the SDK saw the turn")), req({ messages: { role: "user" } }), info);
  assert.deepEqual(got, { error: { code: "InvalidMessages", message: "messages: not an array" } });
});

test("agentTurn answers a NotExpressible thrown by the mapping as the turn error, and lets any other error through", async () => {
  const ne = await agentTurn(agent(() => { throw new NotExpressible("the SDK has no form for it"); }), req(), info);
  assert.deepEqual(ne, { error: { code: "NotExpressible", message: "the SDK has no form for it" } });
  await assert.rejects(agentTurn(agent(() => { throw new CanonicalError("a part with no canonical form"); }), req(), info), CanonicalError);
});

test("turnError names the SDK's error and its cause", () => {
  class APIError extends Error {}
  const e = new APIError("rate limited", { cause: new Error("429") });
  assert.deepEqual(turnError("Model", e), { code: "Model", message: "rate limited (cause: 429)", sdkError: "APIError: rate limited" });
  assert.deepEqual(turnError("Other", "plain"), { code: "Other", message: "plain", sdkError: "plain" });
});

test("failedTurn: an error, and in stream mode the events so far then an error event", () => {
  const error = { code: "Model", message: "down" };
  assert.deepEqual(failedTurn(req(), error, [{ type: "start-step" }]), { error });
  assert.deepEqual(failedTurn(req({ mode: "stream" }), error, [{ type: "start-step" }]), {
    error,
    events: [{ type: "start-step" }, { type: "error", code: "Model", message: "down" }],
  });
  assert.deepEqual(withFinish([{ type: "start-step" }], "stop"), [{ type: "start-step" }, { type: "finish", finishReason: "stop" }]);
});

test("eventsOf lays out a turn's events from its messages as the protocol orders them", () => {
  const call = (id) => ({ type: "tool-call", toolCallId: id, toolName: "t", input: {} });
  const result = (id) => ({ type: "tool-result", toolCallId: id, toolName: "t", output: { type: "json", value: 1 } });
  const request = { type: "tool-approval-request", approvalId: "a2", toolCallId: "c2" };
  const messages = [
    { role: "tool", content: [result("c0")] },
    { role: "assistant", content: [{ type: "text", text: "first" }, call("c1")] },
    { role: "tool", content: [result("c1")] },
    { role: "assistant", content: [{ type: "text", text: "second" }, call("c2"), request] },
  ];
  assert.deepEqual(eventsOf(messages, "tool-calls"), [
    result("c0"),
    { type: "start-step" }, { type: "text-delta", text: "first" }, call("c1"), result("c1"), { type: "finish-step", finishReason: "tool-calls" },
    { type: "start-step" }, { type: "text-delta", text: "second" }, call("c2"), request, { type: "finish-step", finishReason: "tool-calls" },
    { type: "finish", finishReason: "tool-calls" },
  ]);
  // The streamed deltas of a step stand for its text.
  const streamed = eventsOf([{ role: "assistant", content: [{ type: "text", text: "hello" }] }], "stop", { textDeltas: [["hel", "lo"]] });
  assert.deepEqual(streamed, [{ type: "start-step" }, { type: "text-delta", text: "hel" }, { type: "text-delta", text: "lo" }, { type: "finish-step", finishReason: "stop" }, { type: "finish", finishReason: "stop" }]);
});

test("trailingAnswers reads the answers after the last assistant message", () => {
  const answer = (id, approved) => ({ type: "tool-approval-response", approvalId: id, approved });
  const messages = [
    { role: "user", content: "go" },
    { role: "assistant", content: [] },
    { role: "tool", content: [answer("a1", true)] },
    { role: "tool", content: [{ type: "tool-result", toolCallId: "c0" }, answer("a2", false)] },
  ];
  assert.throws(() => trailingAnswers(messages), (e) => e instanceof NotExpressible && e.message === "messages[3].content[0]: a tool-result part beside answers to a paused run: the SDK resumes it with answers only");
  const got = trailingAnswers(messages, { skip: (p) => p.type === "tool-result" });
  assert.deepEqual(got.map((a) => [a.part.approvalId, a.where, a.message]), [["a1", "messages[2].content[0]", 2], ["a2", "messages[3].content[1]", 3]]);
});

test("trailingAnswers refuses what an answers-only resume cannot take, in the adapter's words", () => {
  const words = { beside: "the answer to a suspended run", only: "it resumes with one answer", answerIs: "an answer is approve or decline" };
  const user = [{ role: "assistant", content: [] }, { role: "user", content: "and another thing" }];
  assert.throws(() => trailingAnswers(user, words), { message: "messages[1]: a user message beside the answer to a suspended run: it resumes with one answer" });
  const malformed = [{ role: "assistant", content: [] }, { role: "tool", content: [{ type: "tool-approval-response", approvalId: 7, approved: "yes" }] }];
  assert.throws(() => trailingAnswers(malformed, words), { message: 'messages[1].content[0]: a malformed answer (approvalId 7, approved "yes"): an answer is approve or decline' });
  assert.deepEqual(trailingAnswers([{ role: "user", content: "hi" }, { role: "assistant", content: [] }]), []);
});
