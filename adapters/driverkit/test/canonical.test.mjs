import { test } from "node:test";
import assert from "node:assert/strict";

import { ModelHTTPError, ReplyBuilder, callCanonical, canonicalURL } from "../index.mjs";
import { listen, readAll } from "./helpers.mjs";

// model stands in for the simulator's canonical model API.
async function model() {
  const calls = [];
  const srv = await listen(async (req, res) => {
    const body = JSON.parse(await readAll(req));
    calls.push({ path: req.url, body });
    if (body.messages[0]?.content === "fail") return res.writeHead(429, { "content-type": "application/json" }).end('{"error":{"message":"slow down"}}');
    if (!body.stream) return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ content: [{ type: "text", text: "hi" }], finishReason: "stop" }));
    res.writeHead(200, { "content-type": "text/event-stream" });
    for (const ev of [{ type: "text-delta", text: "h" }, { type: "text-delta", text: "i" }, { type: "tool-input-start", toolCallId: "c", toolName: "t" }, { type: "tool-call", toolCallId: "c", toolName: "t", input: {} }, { type: "finish", finishReason: "tool-calls", usage: { inputTokens: 1, outputTokens: 2 } }]) {
      res.write(`data: ${JSON.stringify(ev)}\n\n`);
    }
    res.end();
  });
  return { ...srv, calls };
}

test("canonicalURL is {baseURL}/canonical", () => {
  assert.equal(canonicalURL("http://h/c/s1/v1"), "http://h/c/s1/v1/canonical");
  assert.equal(canonicalURL("http://h/v1/"), "http://h/v1/canonical");
});

test("callCanonical answers a whole reply, or the stream's events", async (t) => {
  const m = await model();
  t.after(m.close);
  const base = `${m.url}/s1/v1`;
  const user = [{ role: "user", content: "hello" }];
  assert.deepEqual(await callCanonical(base, { messages: user, stream: false }), { content: [{ type: "text", text: "hi" }], finishReason: "stop" });
  const reply = new ReplyBuilder();
  for await (const ev of await callCanonical(base, { messages: user, stream: true })) reply.add(ev);
  assert.deepEqual(reply.content, [{ type: "text", text: "hi" }, { type: "tool-call", toolCallId: "c", toolName: "t", input: {} }]);
  assert.equal(reply.finishReason, "tool-calls");
  assert.deepEqual(reply.usage, { inputTokens: 1, outputTokens: 2 });
  assert.deepEqual(m.calls.map((c) => c.path), ["/s1/v1/canonical", "/s1/v1/canonical"]);
});

test("callCanonical throws an error answer as ModelHTTPError, or as the SDK's own error", async (t) => {
  const m = await model();
  t.after(m.close);
  const fail = { messages: [{ role: "user", content: "fail" }], stream: false };
  await assert.rejects(callCanonical(`${m.url}/v1`, fail), (e) => e instanceof ModelHTTPError && e.status === 429 && /^canonical model: HTTP 429: /.test(e.message));
  class APICallError extends Error {}
  await assert.rejects(callCanonical(`${m.url}/v1`, fail, { error: ({ status, body }) => new APICallError(`${status} ${JSON.parse(body).error.message}`) }), { message: "429 slow down" });
});

test("ReplyBuilder keeps text and reasoning apart", () => {
  const r = new ReplyBuilder();
  for (const ev of [{ type: "reasoning-delta", text: "let me " }, { type: "reasoning-delta", text: "think" }, { type: "text-delta", text: "a" }, { type: "text-delta", text: "b" }]) r.add(ev);
  assert.deepEqual(r.content, [{ type: "reasoning", text: "let me think" }, { type: "text", text: "ab" }]);
});
