#!/usr/bin/env node
// Mastra (@mastra/core) agents behind driver protocol v1.
//
//   node adapter.mjs --sdk versions/1.71.0 [--model-api wire|canonical] [--eager-tool-execution] [--listen 127.0.0.1:0]
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
    // Mastra's default for Agent.stream(): tools that need no approval start
    // while the model streams. Off unless asked: see src/agent.mjs, Runner.
    "eager-tool-execution": { type: "boolean", default: false },
  },
});

function fail(msg) {
  process.stderr.write(`adapter: ${msg}\n`);
  process.exit(2);
}

if (!flags.sdk) fail("--sdk DIR is required (an installed version folder, e.g. versions/1.71.0; see install.sh)");
const sdkDir = resolve(flags.sdk);
let sdkVersion;
try {
  sdkVersion = JSON.parse(readFileSync(join(sdkDir, "node_modules", "@mastra", "core", "package.json"), "utf8")).version;
} catch (e) {
  fail(`--sdk ${flags.sdk}: no installed @mastra/core package (${e.message}); run ./install.sh VERSION first`);
}
const sdk = await import(pathToFileURL(join(sdkDir, "sdk.mjs")).href);

const modelAPIs = { wire: ["openai-chat", "openai-responses", "anthropic-messages"], canonical: ["canonical"] }[flags["model-api"]];
if (!modelAPIs) fail(`--model-api ${flags["model-api"]}: want wire or canonical`);

const runner = new Runner({ sdk, eagerToolExecution: flags["eager-tool-execution"] });

const info = {
  name: `mastra-adapter (${flags["model-api"] === "canonical" ? "canonical model" : "AI SDK 5 provider packages"}${flags["eager-tool-execution"] ? ", eager tool execution" : ""})`,
  version: ADAPTER_VERSION,
  sdk: "@mastra/core",
  sdkVersion,
  roles: ["agent"],
  features: {
    modes: ["generate", "stream"],
    // createTool({requireApproval: fn}) decides per call, with the call's
    // input and the request context (not its id: REQ-04 judges that); a
    // throwing fn requires approval (resolveToolApprovalVerdict).
    dynamicPolicy: true,
    // toolCallConcurrency.
    concurrency: true,
    providerExecuted: false,
    // Mastra has no errors of its own for a missing toolkit or an unknown tool.
    toolkitErrors: false,
    denialPolicy: "independent",
    toolErrors: "result",
    modelAPIs,
    steps: "loop",
    // A suspended run resumes from Mastra's snapshot, by its run id.
    resumeState: true,
    // A declined call's result is text: the reason, or "Tool call was not approved by the user".
    untypedResults: true,
    // Not boundApprovals: approveToolCall / declineToolCall take the
    // answer's toolCallId, so an answer naming no call the run waits on (a
    // stray answer) is expressible, and goes to Mastra as it came.
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
  if (path.startsWith("/v1/client/")) throw new HTTPError(501, "NotImplemented", "this adapter plays Mastra's agent role only");
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
