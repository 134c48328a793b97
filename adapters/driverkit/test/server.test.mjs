import { test } from "node:test";
import assert from "node:assert/strict";

import { ServerRole, serve } from "../index.mjs";
import { request } from "./helpers.mjs";

const info = { name: "s", version: "1", roles: ["server"], features: { serverProtocols: ["ui-message-stream"] } };
const chatRequest = { protocol: "ui-message-stream", model: { baseURL: "http://127.0.0.1:9/v1", api: "openai-chat" }, tools: [{ name: "t", approval: "always", executeURL: "http://127.0.0.1:9/x" }], options: {}, conversation: "c" };

// gate is a promise the test resolves.
function gate() {
  let open;
  const p = new Promise((resolve) => (open = resolve));
  return { p, open };
}

async function start(t, opts = {}) {
  const chats = [];
  const server = new ServerRole({
    protocols: { "ui-message-stream": undefined },
    open: (cfg) => {
      const chat = {
        cfg,
        requests: [],
        closed: false,
        // The chat route: it answers a stream whose second event waits for
        // the test's gate, so the test sees the first before the route ends.
        release: gate(),
        async handle(req) {
          this.requests.push({ method: req.method, url: req.url, type: req.headers.get("content-type"), body: await req.json() });
          const release = this.release.p;
          const enc = new TextEncoder();
          const body = new ReadableStream({
            async start(c) {
              c.enqueue(enc.encode('data: {"type":"start"}\n\n'));
              await release;
              c.enqueue(enc.encode('data: {"type":"finish"}\n\n'));
              c.close();
            },
          });
          return new Response(body, { status: 200, headers: { "content-type": "text/event-stream", "x-chat": "yes" } });
        },
        close() {
          this.closed = true;
        },
      };
      chats.push(chat);
      return chat;
    },
    ...opts,
  });
  const srv = await serve({ info, server, trace: "" });
  t.after(srv.close);
  return { url: srv.url, chats };
}

test("a chat opens at a URL of the adapter, and serves the SDK's route there, streaming", async (t) => {
  const s = await start(t);
  const created = await request("POST", `${s.url}/v1/server/chats`, chatRequest);
  assert.equal(created.status, 200);
  const { chatId, chatURL } = created.body;
  assert.equal(chatURL, `${s.url}/v1/server/chats/${chatId}/chat`);
  const chat = s.chats[0];
  assert.equal(chat.cfg.protocol, "ui-message-stream");
  assert.deepEqual(chat.cfg.tools, chatRequest.tools);

  const res = await fetch(chatURL, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ messages: [{ id: "u1" }] }) });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("x-chat"), "yes");
  const reader = res.body.getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  assert.equal(first, 'data: {"type":"start"}\n\n'); // before the route ended
  chat.release.open();
  let rest = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    rest += new TextDecoder().decode(value);
  }
  assert.equal(rest, 'data: {"type":"finish"}\n\n');
  assert.deepEqual(chat.requests, [{ method: "POST", url: chatURL, type: "application/json", body: { messages: [{ id: "u1" }] } }]);

  assert.equal((await request("DELETE", `${s.url}/v1/server/chats/${chatId}`)).status, 204);
  assert.ok(chat.closed);
  assert.equal((await request("POST", chatURL, {})).status, 404);
});

test("a chat in a protocol the route does not speak, or a bad chat request, is refused", async (t) => {
  const s = await start(t);
  const other = await request("POST", `${s.url}/v1/server/chats`, { ...chatRequest, protocol: "ag-ui" });
  assert.equal(other.status, 400);
  assert.match(other.body.error.message, /^protocol: this chat endpoint speaks ui-message-stream, not ag-ui/);
  const bad = await request("POST", `${s.url}/v1/server/chats`, { ...chatRequest, tools: [{ name: "t", approval: "dynamic" }] });
  assert.equal(bad.status, 400);
  assert.match(bad.body.error.message, /^tools\[0\]\.policyURL/);
  assert.equal(s.chats.length, 0);
});

test("chats past the bound are refused with 429", async (t) => {
  const s = await start(t, { maxChats: 1 });
  assert.equal((await request("POST", `${s.url}/v1/server/chats`, chatRequest)).status, 200);
  const second = await request("POST", `${s.url}/v1/server/chats`, chatRequest);
  assert.equal(second.status, 429);
  assert.equal(second.body.error.code, "TooManySessions");
});
