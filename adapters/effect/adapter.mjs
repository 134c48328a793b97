#!/usr/bin/env node
// Effect's AI modules (LanguageModel, Toolkit) behind driver protocol v1.
//
//   node adapter.mjs --sdk versions/4.1.0 [--model-api wire|canonical]
//                    [--failure-mode return|error] [--listen 127.0.0.1:0]
//
// Prints the driver URL on the first line of stdout. See README.md.

import { createServer } from "node:http";
import { appendFileSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

import { Agent } from "./src/agent.mjs";
import { HTTPError, badRequest, checkTurn, onlyFields, readJSON, sendError, sendJSON } from "../driver-http/http.mjs";

const ADAPTER_VERSION = "1.0.0";

const { values: flags } = parseArgs({
  options: {
    sdk: { type: "string" },
    "model-api": { type: "string", default: "wire" },
    "failure-mode": { type: "string", default: "return" },
    listen: { type: "string", default: "127.0.0.1:0" },
  },
});

function fail(msg) {
  process.stderr.write(`adapter: ${msg}\n`);
  process.exit(2);
}

if (!flags.sdk) fail("--sdk DIR is required (an installed version folder, e.g. versions/4.1.0; see install.sh)");
const sdkDir = resolve(flags.sdk);
let sdkVersion;
try {
  sdkVersion = JSON.parse(readFileSync(join(sdkDir, "node_modules", "effect", "package.json"), "utf8")).version;
} catch (e) {
  fail(`--sdk ${flags.sdk}: no installed effect package (${e.message}); run ./install.sh VERSION first`);
}
const sdk = await import(pathToFileURL(join(sdkDir, "sdk.mjs")).href);

const modelAPIs = { wire: ["openai-chat"], canonical: ["canonical"] }[flags["model-api"]];
if (!modelAPIs) fail(`--model-api ${flags["model-api"]}: want wire or canonical`);
const toolErrors = { return: "result", error: "turn-error" }[flags["failure-mode"]];
if (!toolErrors) fail(`--failure-mode ${flags["failure-mode"]}: want return or error`);

const agent = new Agent({ sdk, failureMode: flags["failure-mode"] });

const info = {
  name: `effect-adapter (${sdk.aiModule}, ${flags["model-api"] === "canonical" ? "canonical model" : "OpenAI Chat Completions"}, failureMode ${flags["failure-mode"]})`,
  version: ADAPTER_VERSION,
  sdk: "effect",
  sdkVersion,
  roles: ["agent"],
  features: {
    modes: ["generate", "stream"],
    dynamicPolicy: true,
    // The concurrency option of generateText/streamText bounds the tool runs.
    concurrency: true,
    // Effect's toolkit has no approval flow for tools the provider runs.
    providerExecuted: false,
    // AiError's ToolkitRequiredError and ToolNotFoundError.
    toolkitErrors: true,
    denialPolicy: "independent",
    toolErrors,
    modelAPIs,
    // generateText and streamText make one model call; there is no step loop.
    steps: "single",
  },
};

async function route(req, res) {
  const path = new URL(req.url, "http://adapter").pathname;
  if (req.method === "GET" && path === "/v1/info") return sendJSON(res, 200, info);
  if (req.method === "POST" && path === "/v1/agent/turn") {
    const body = await readJSON(req);
    checkTurn(body);
    const answer = await agent.turn(body);
    // ACK_ADAPTER_TRACE=FILE appends every turn (request and answer) to FILE, as JSON lines.
    if (process.env.ACK_ADAPTER_TRACE) appendFileSync(process.env.ACK_ADAPTER_TRACE, JSON.stringify({ request: body, answer }) + "\n");
    return sendJSON(res, 200, answer);
  }
  if (path.startsWith("/v1/client/")) throw new HTTPError(501, "NotImplemented", "Effect has no chat client: this adapter plays the agent role only");
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
