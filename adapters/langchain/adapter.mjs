#!/usr/bin/env node
// LangChain.js (langchain createAgent with humanInTheLoopMiddleware) behind driver protocol v1.
//
//   node adapter.mjs --sdk versions/1.5.14 [--model-api wire|canonical] [--step-limit recursion|middleware] [--listen 127.0.0.1:0]
//
// Prints the driver URL on the first line of stdout. See README.md.

import { createServer } from "node:http";
import { appendFileSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

import { Runner } from "./src/agent.mjs";
import { HTTPError, badRequest, checkTurn, onlyFields, readJSON, sendError, sendJSON } from "../driver-http/http.mjs";

const ADAPTER_VERSION = "1.0.0";

const { values: flags } = parseArgs({
  options: {
    sdk: { type: "string" },
    "model-api": { type: "string", default: "wire" },
    "step-limit": { type: "string", default: "recursion" },
    listen: { type: "string", default: "127.0.0.1:0" },
  },
});

function fail(msg) {
  process.stderr.write(`adapter: ${msg}\n`);
  process.exit(2);
}

if (!flags.sdk) fail("--sdk DIR is required (an installed version folder, e.g. versions/1.5.14; see install.sh)");
const sdkDir = resolve(flags.sdk);
let sdkVersion;
try {
  sdkVersion = JSON.parse(readFileSync(join(sdkDir, "node_modules", "langchain", "package.json"), "utf8")).version;
} catch (e) {
  fail(`--sdk ${flags.sdk}: no installed langchain package (${e.message}); run ./install.sh VERSION first`);
}
const sdk = await import(pathToFileURL(join(sdkDir, "sdk.mjs")).href);

// The middleware's `when` predicate (interruptOn[tool].when, a per-call
// policy) is not in every 1.x version (1.0.6 has none): the installed
// version's declaration of InterruptOnConfig says whether it has one.
let dynamicPolicy = false;
try {
  dynamicPolicy = /^\s*when\?:/m.test(readFileSync(join(sdkDir, "node_modules", "langchain", "dist", "agents", "middleware", "hitl.d.ts"), "utf8"));
} catch (e) {
  fail(`--sdk ${flags.sdk}: cannot read the middleware's declarations (${e.message})`);
}

const modelAPIs = { wire: ["openai-chat", "openai-responses", "anthropic-messages"], canonical: ["canonical"] }[flags["model-api"]];
if (!modelAPIs) fail(`--model-api ${flags["model-api"]}: want wire or canonical`);

if (!["recursion", "middleware"].includes(flags["step-limit"])) fail(`--step-limit ${flags["step-limit"]}: want recursion or middleware`);

const runner = new Runner({ sdk, stepLimit: flags["step-limit"], dynamicPolicy });

const info = {
  name: `langchain-adapter (${flags["model-api"] === "canonical" ? "canonical model" : "ChatOpenAI and ChatAnthropic"})`,
  version: ADAPTER_VERSION,
  sdk: "langchain",
  sdkVersion,
  roles: ["agent"],
  features: {
    modes: ["generate", "stream"],
    // The middleware's interruptOn config takes a `when` predicate per tool (where the version has one).
    dynamicPolicy,
    // createAgent has no option bounding parallel tool runs.
    concurrency: false,
    // The agent's tools are run by its tools node; there are no provider-run tools with approvals.
    providerExecuted: false,
    toolkitErrors: false,
    denialPolicy: "independent",
    // The tools node gives the model a failed tool's error as an error ToolMessage.
    toolErrors: "result",
    modelAPIs,
    steps: "loop",
    // A paused run is an interrupt in the thread's checkpoint; the state is {thread, checkpoint}.
    resumeState: true,
    // A ToolMessage is text with a status; a rejection is an error ToolMessage with the message.
    untypedResults: true,
    // Every decision of an interrupt is sent together, one per action request, in order.
    batchedDecisions: true,
    // A decision may be an edit of the call's arguments: {type: "edit", editedAction: {name, args}}.
    editedApprovals: true,
  },
};

async function route(req, res) {
  const path = new URL(req.url, "http://adapter").pathname;
  if (req.method === "GET" && path === "/v1/info") return sendJSON(res, 200, info);
  if (req.method === "POST" && path === "/v1/agent/turn") {
    const body = await readJSON(req);
    checkTurn(body);
    const answer = await runner.turn(body);
    // ACK_ADAPTER_TRACE=FILE appends every turn (request and answer) to FILE, as JSON lines.
    if (process.env.ACK_ADAPTER_TRACE) appendFileSync(process.env.ACK_ADAPTER_TRACE, JSON.stringify({ request: body, answer }) + "\n");
    return sendJSON(res, 200, answer);
  }
  if (path.startsWith("/v1/client/")) throw new HTTPError(501, "NotImplemented", "LangChain's createAgent has no chat client of its own: this adapter plays the agent role only");
  throw new HTTPError(404, "NotFound", `${req.method} ${path}: no such endpoint`);
}

const server = createServer((req, res) => {
  route(req, res).catch((e) => {
    if (!(e instanceof HTTPError)) process.stderr.write(`adapter: ${e?.stack ?? e}\n`);
    if (!res.headersSent) sendError(res, e);
    else res.destroy();
  });
});
const [host, port] = flags.listen.split(/:(?=[^:]*$)/);
server.listen(Number(port), host, () => {
  const a = server.address();
  process.stdout.write(`http://${a.family === "IPv6" ? `[${a.address}]` : a.address}:${a.port}\n`);
});
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => server.close(() => process.exit(0)));
