import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

import { FlagError, HTTPError, parseFlags, serve } from "../index.mjs";
import { request } from "./helpers.mjs";

const info = { name: "a", version: "1", roles: ["agent"], features: { modes: ["generate"], modelAPIs: ["openai-chat"] } };
const turn = { mode: "generate", model: { baseURL: "http://127.0.0.1:9/v1", api: "openai-chat" }, toolkit: "absent", options: {}, messages: [], conversation: "c1" };

// A log that keeps what the server writes.
const logged = () => ({ text: "", write(s) { this.text += s; } });

test("serve answers the info and the turns, and traces each turn", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "driverkit-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const trace = join(dir, "trace.jsonl");
  const agent = { turn: (req) => ({ messages: [], finishReason: req.conversation }) };
  const srv = await serve({ info, agent, trace, notPlayed: "the SDK has no chat client" });
  t.after(srv.close);
  assert.match(srv.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.deepEqual((await request("GET", `${srv.url}/v1/info`)).body, info);
  assert.deepEqual((await request("POST", `${srv.url}/v1/agent/turn`, turn)).body, { messages: [], finishReason: "c1" });
  assert.deepEqual(JSON.parse(readFileSync(trace, "utf8")), { request: turn, answer: { messages: [], finishReason: "c1" } });
  const bad = await request("POST", `${srv.url}/v1/agent/turn`, { ...turn, toolkit: "some" });
  assert.equal(bad.status, 400);
  assert.match(bad.body.error.message, /^toolkit: want provided, absent or empty/);
  const client = await request("POST", `${srv.url}/v1/client/sessions`, {});
  assert.deepEqual([client.status, client.body.error.code, client.body.error.message], [501, "NotImplemented", "the SDK has no chat client: this adapter plays the agent role, not the client role"]);
  assert.equal((await request("POST", `${srv.url}/v1/server/chats`, {})).status, 501);
  assert.equal((await request("GET", `${srv.url}/v2/info`)).status, 404);
});

test("serve answers 500 Internal for an adapter's own failure, and logs it", async (t) => {
  const log = logged();
  const srv = await serve({ info, agent: { turn: () => { throw new TypeError("cannot read x"); } }, log, trace: "" });
  t.after(srv.close);
  const got = await request("POST", `${srv.url}/v1/agent/turn`, turn);
  assert.deepEqual([got.status, got.body], [500, { error: { code: "Internal", message: "TypeError: cannot read x" } }]);
  assert.match(log.text, /^adapter: TypeError: cannot read x/);
  // A refusal of its own is the adapter's answer, not a failure to log.
  const refusing = await serve({ info, agent: { turn: () => { throw new HTTPError(409, "Conflict", "busy"); } }, log: logged(), trace: "" });
  t.after(refusing.close);
  assert.equal((await request("POST", `${refusing.url}/v1/agent/turn`, turn)).status, 409);
});

test("parseFlags takes the spec's flags and names a mistake", () => {
  const spec = { mode: { default: "a", choices: ["a", "b", "c"] }, on: { type: "boolean" } };
  assert.deepEqual({ ...parseFlags(["--mode", "b", "--on"], spec) }, { mode: "b", on: true });
  assert.deepEqual({ ...parseFlags([], spec) }, { mode: "a" });
  assert.throws(() => parseFlags(["--mode", "d"], spec), (e) => e instanceof FlagError && e.message === "--mode d: want a, b or c");
  assert.throws(() => parseFlags(["--nope"], spec), FlagError);
  assert.throws(() => parseFlags(["stray"], spec), FlagError);
});

const adapter = fileURLToPath(new URL("../testdata/adapter.mjs", import.meta.url));

// sdkFolder makes an installed version folder of the fake SDK.
function sdkFolder(t) {
  const dir = mkdtempSync(join(tmpdir(), "driverkit-sdk-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, "node_modules", "fake-sdk"), { recursive: true });
  writeFileSync(join(dir, "node_modules", "fake-sdk", "package.json"), JSON.stringify({ name: "fake-sdk", version: "1.2.3" }));
  writeFileSync(join(dir, "sdk.mjs"), 'export const greeting = "hello";\n');
  return dir;
}

// run runs the test adapter to its end: its exit code and output.
function run(args) {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [adapter, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    p.stdout.on("data", (d) => (out += d));
    p.stderr.on("data", (d) => (err += d));
    p.on("close", (code) => resolve({ code, out, err }));
  });
}

test("runAdapter exits 2 naming what stops the adapter, before any URL", async (t) => {
  const sdk = sdkFolder(t);
  const cases = [
    [[], /^adapter: --sdk DIR is required/],
    [["--sdk", join(sdk, "nope")], /no installed fake-sdk package/],
    [["--sdk", sdk, "--mood", "angry"], /^adapter: --mood angry: want calm or busy\nusage: node adapter\.mjs/],
    [["--sdk", sdk, "--model-api", "grpc"], /--model-api grpc: want wire or canonical/],
    [["--sdk", sdk, "--bogus"], /^adapter: Unknown option '--bogus'/],
    [["--sdk", sdk, "--fail", "now"], /^adapter: --fail now: as asked/],
    [["--sdk", sdk, "--declare", "dynamicPolicys"], /features\.dynamicPolicys: not a feature/],
    [["--sdk", sdk, "--listen", "256.1.1.1:0"], /^adapter: --listen 256\.1\.1\.1:0: /],
  ];
  for (const [args, want] of cases) {
    const r = await run(args);
    assert.equal(r.code, 2, `${args.join(" ")}: exit ${r.code}\n${r.err}`);
    assert.equal(r.out, "", `${args.join(" ")}: printed ${r.out}`);
    assert.match(r.err, want, args.join(" "));
  }
  const help = await run(["--help"]);
  assert.deepEqual([help.code, help.out], [0, "usage: node adapter.mjs --sdk DIR [--model-api wire|canonical] [--mood calm|busy] [--declare wrong]\n"]);
});

test("runAdapter prints the URL first, serves the adapter with its SDK, and stops on SIGTERM", async (t) => {
  const sdk = sdkFolder(t);
  const p = spawn(process.execPath, [adapter, "--sdk", sdk, "--model-api", "canonical", "--mood", "busy"], { stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise((resolve) => p.on("close", (code, signal) => resolve({ code, signal })));
  const [url] = await new Promise((resolve) => createInterface({ input: p.stdout }).once("line", (l) => resolve([l])));
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
  const got = (await request("GET", `${url}/v1/info`)).body;
  assert.equal(got.name, "test-adapter (busy)");
  assert.equal(got.sdkVersion, "1.2.3");
  assert.deepEqual(got.features.modelAPIs, ["canonical"]);
  const answer = (await request("POST", `${url}/v1/agent/turn`, { ...turn, model: { ...turn.model, api: "canonical" } })).body;
  assert.deepEqual(answer.messages, [{ role: "assistant", content: [{ type: "text", text: "hello c1" }] }]);
  // The harness keeps its connection alive; SIGTERM still stops the adapter at once.
  p.kill("SIGTERM");
  assert.deepEqual(await exited, { code: 0, signal: null });
});
