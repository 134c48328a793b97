import { test } from "node:test";
import assert from "node:assert/strict";
import { Readable } from "node:stream";

import { HTTPError, postJSON, readJSON, sendError, sseEvents } from "../index.mjs";
import { listen, request } from "./helpers.mjs";

// A request stand-in: the body's chunks, and its headers.
const body = (chunks, headers = {}) => Object.assign(Readable.from(chunks.map((c) => Buffer.from(c))), { headers });

test("readJSON reads a JSON body", async () => {
  assert.deepEqual(await readJSON(body(['{"a":', "1}"])), { a: 1 });
});

test("readJSON refuses a body that is not JSON, saying so", async () => {
  await assert.rejects(readJSON(body(["{nope"])), (e) => e instanceof HTTPError && e.status === 400 && e.code === "BadRequest" && /body: not JSON/.test(e.message));
});

test("readJSON refuses a declared length over the bound before reading", async () => {
  let read = false;
  const req = Object.assign(Readable.from((function* () {
    read = true;
    yield Buffer.from("{}");
  })()), { headers: { "content-length": "11" } });
  await assert.rejects(readJSON(req, { max: 10 }), (e) => e.status === 413 && e.code === "TooLarge");
  assert.equal(read, false);
});

test("readJSON refuses a body that grows past the bound", async () => {
  await assert.rejects(readJSON(body(["[1,2,", "3,4,5,6]"]), { max: 8 }), (e) => e.status === 413 && /larger than 8 bytes/.test(e.message));
});

test("sendError answers the envelope: an HTTPError's status and code, else 500 Internal", async () => {
  const srv = await listen((req, res) => sendError(res, req.url === "/refused" ? new HTTPError(404, "NotFound", "no such thing") : new TypeError("boom")));
  try {
    assert.deepEqual(await request("GET", `${srv.url}/refused`).then((r) => [r.status, r.body]), [404, { error: { code: "NotFound", message: "no such thing" } }]);
    assert.deepEqual(await request("GET", `${srv.url}/other`).then((r) => [r.status, r.body]), [500, { error: { code: "Internal", message: "TypeError: boom" } }]);
  } finally {
    await srv.close();
  }
});

test("postJSON returns the answer, and names the status of an error answer", async () => {
  const srv = await listen(async (req, res) => {
    if (req.url === "/ok") return res.end(JSON.stringify({ output: 1 }));
    if (req.url === "/text") return res.end("not json");
    res.writeHead(410).end("gone");
  });
  try {
    assert.deepEqual(await postJSON(`${srv.url}/ok`, {}), { output: 1 });
    await assert.rejects(postJSON(`${srv.url}/gone`, {}), /HTTP 410: gone/);
    await assert.rejects(postJSON(`${srv.url}/text`, {}), /answer is not JSON/);
  } finally {
    await srv.close();
  }
});

test("sseEvents yields each event's data, whatever the line ends and chunking", async () => {
  const stream = [": a comment\r\n\r\n", 'data: {"a":1}\r\n', "\r\n", 'data: {"b":\ndata: 2}\n\n', 'data: {"c":3}'];
  const got = [];
  for await (const ev of sseEvents(stream.map((s) => Buffer.from(s)))) got.push(ev);
  assert.deepEqual(got, [{ a: 1 }, { b: 2 }, { c: 3 }]);
});

test("sseEvents stops at [DONE]", async () => {
  const got = [];
  for await (const ev of sseEvents([Buffer.from('data: {"a":1}\n\ndata: [DONE]\n\ndata: {"b":2}\n\n')])) got.push(ev);
  assert.deepEqual(got, [{ a: 1 }]);
});
