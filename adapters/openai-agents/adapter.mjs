#!/usr/bin/env node
// The OpenAI Agents SDK (@openai/agents) behind driver protocol v1.
//
//   node adapter.mjs --sdk versions/0.20.0 [--model-api wire|canonical] [--turn-limit state|error] [--run-state client|server] [--listen 127.0.0.1:0]
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
    listen: { type: "string", default: "127.0.0.1:0" },
    "turn-limit": { type: "string", default: "state" },
    "run-state": { type: "string", default: "client" },
  },
});

function fail(msg) {
  process.stderr.write(`adapter: ${msg}\n`);
  process.exit(2);
}

if (!flags.sdk) fail("--sdk DIR is required (an installed version folder, e.g. versions/0.20.0; see install.sh)");
const sdkDir = resolve(flags.sdk);
let sdkVersion;
try {
  sdkVersion = JSON.parse(readFileSync(join(sdkDir, "node_modules", "@openai", "agents", "package.json"), "utf8")).version;
} catch (e) {
  fail(`--sdk ${flags.sdk}: no installed @openai/agents package (${e.message}); run ./install.sh VERSION first`);
}
const sdk = await import(pathToFileURL(join(sdkDir, "sdk.mjs")).href);
// Traces would be exported to OpenAI's platform; the kit's runs have no key.
sdk.setTracingDisabled(true);

const modelAPIs = { wire: ["openai-chat", "openai-responses"], canonical: ["canonical"] }[flags["model-api"]];
if (!modelAPIs) fail(`--model-api ${flags["model-api"]}: want wire or canonical`);

if (!["state", "error"].includes(flags["turn-limit"])) fail(`--turn-limit ${flags["turn-limit"]}: want state or error`);
if (!["client", "server"].includes(flags["run-state"])) fail(`--run-state ${flags["run-state"]}: want client or server`);
const runner = new Runner({ sdk, turnLimit: flags["turn-limit"], runState: flags["run-state"] });

const info = {
  name: `openai-agents-adapter (${flags["model-api"] === "canonical" ? "canonical model" : "OpenAI Chat Completions and Responses"})`,
  version: ADAPTER_VERSION,
  sdk: "@openai/agents",
  sdkVersion,
  roles: ["agent"],
  features: {
    modes: ["generate", "stream"],
    dynamicPolicy: true,
    // toolExecution.maxFunctionToolConcurrency (a run option and a
    // RunConfig field, runner/runConfig.d.ts) bounds the local function
    // tools a step runs at once.
    concurrency: true,
    // Hosted MCP approvals (hostedMcpTool with requireApproval) are interruptions the application answers.
    providerExecuted: true,
    // The SDK has no errors of its own for a missing toolkit or an unknown tool.
    toolkitErrors: false,
    denialPolicy: "independent",
    // A throwing tool gives the model its errorFunction's text.
    toolErrors: "result",
    modelAPIs,
    steps: "loop",
    // A paused run resumes from its RunState (result.state.toString()).
    resumeState: true,
    // A result is text: a denial is "Tool execution was not approved." or the reject message.
    untypedResults: true,
    // An answer is state.approve(item) or state.reject(item, {message}) on an interruption.
    boundApprovals: true,
    hostedTools: true,
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
  if (path.startsWith("/v1/client/")) throw new HTTPError(501, "NotImplemented", "the OpenAI Agents SDK has no chat client: this adapter plays the agent role only");
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
