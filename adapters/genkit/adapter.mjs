#!/usr/bin/env node
// Genkit JS (genkit generate() with the toolApproval middleware) behind driver protocol v1.
//
//   node adapter.mjs --sdk versions/1.42.0 [--model-api wire|canonical] [--modes generate,stream] [--settle-tools on|off] [--listen 127.0.0.1:0]
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
    "settle-tools": { type: "string", default: "on" },
    modes: { type: "string", default: "generate,stream" },
    listen: { type: "string", default: "127.0.0.1:0" },
  },
});

function fail(msg) {
  process.stderr.write(`adapter: ${msg}\n`);
  process.exit(2);
}

if (!flags.sdk) fail("--sdk DIR is required (an installed version folder, e.g. versions/1.42.0; see install.sh)");
const sdkDir = resolve(flags.sdk);
let sdkVersion;
try {
  sdkVersion = JSON.parse(readFileSync(join(sdkDir, "node_modules", "genkit", "package.json"), "utf8")).version;
} catch (e) {
  fail(`--sdk ${flags.sdk}: no installed genkit package (${e.message}); run ./install.sh VERSION first`);
}
const sdk = await import(pathToFileURL(join(sdkDir, "sdk.mjs")).href);

const modelAPIs = { wire: ["openai-chat", "anthropic-messages"], canonical: ["canonical"] }[flags["model-api"]];
if (!modelAPIs) fail(`--model-api ${flags["model-api"]}: want wire or canonical`);

// The modes the adapter offers: generate() and generateStream(), or
// generate() alone (the wire path: generateStream stalls on a large
// streamed tool input, README.md).
const modes = flags.modes.split(",");
if (modes.length === 0 || modes.some((m) => m !== "generate" && m !== "stream") || new Set(modes).size !== modes.length) fail(`--modes ${flags.modes}: want generate, stream or generate,stream`);

if (!["on", "off"].includes(flags["settle-tools"])) fail(`--settle-tools ${flags["settle-tools"]}: want on or off`);

const runner = new Runner({ sdk, settleTools: flags["settle-tools"] === "on" });

const info = {
  name: `genkit-adapter (${flags["model-api"] === "canonical" ? "canonical model" : "compat_oai and anthropic plugins"})`,
  version: ADAPTER_VERSION,
  sdk: "genkit",
  sdkVersion,
  roles: ["agent"],
  features: {
    modes,
    // toolApproval takes a fixed list of approved tools: no per-call policy.
    dynamicPolicy: false,
    // generate() has no option bounding parallel tool runs.
    concurrency: false,
    providerExecuted: false,
    toolkitErrors: false,
    denialPolicy: "independent",
    // A throwing tool fails the generation.
    toolErrors: "turn-error",
    modelAPIs,
    steps: "loop",
    // A denial is the application's respondTool output: an ordinary result.
    untypedResults: true,
    // resume must restart or respond to every interrupted call of the message it resumes.
    batchedDecisions: true,
    // An approval may restart the call with new input: restartTool(interrupt, {toolApproved: true}, {replaceInput}).
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
  if (path.startsWith("/v1/client/")) throw new HTTPError(501, "NotImplemented", "Genkit's generate() has no chat client of its own: this adapter plays the agent role only");
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
