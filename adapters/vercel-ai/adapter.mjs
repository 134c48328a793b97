#!/usr/bin/env node
// The Vercel AI SDK behind driver protocol v1.
//
//   node adapter.mjs --sdk versions/7.0.173 [--approval needsApproval|toolApproval]
//                    [--listen 127.0.0.1:0] [--approval-secret on|off] [--client-queue]
//                    [--default-steps N|sdk] [--message-validation on|off]
//
// Prints the driver URL on the first line of stdout. See README.md.

import { createServer } from "node:http";
import { appendFileSync, readFileSync } from "node:fs";
import { resolve, join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { randomBytes } from "node:crypto";

import { Agent } from "./src/agent.mjs";
import { CLIENT_STATES, Clients } from "./src/client.mjs";
import { HTTPError, badRequest, onlyFields, readJSON, sendError, sendJSON } from "./src/http.mjs";

const ADAPTER_VERSION = "1.0.0";

const { values: flags } = parseArgs({
  options: {
    sdk: { type: "string" },
    approval: { type: "string", default: "needsApproval" },
    listen: { type: "string", default: "127.0.0.1:0" },
    "approval-secret": { type: "string", default: "on" },
    "client-queue": { type: "boolean", default: false },
    "model-api": { type: "string", default: "wire" },
    // Configuration choices that move verdicts (docs/adapter-guide.md,
    // "Choices that move a verdict"); the defaults are the certified ones.
    "default-steps": { type: "string", default: "5" },
    "message-validation": { type: "string", default: "on" },
  },
});

function fail(msg) {
  process.stderr.write(`adapter: ${msg}\n`);
  process.exit(2);
}

if (!flags.sdk) fail("--sdk DIR is required (an installed version folder, e.g. versions/7.0.173; see install.sh)");
const sdkDir = resolve(flags.sdk);
let sdkVersion;
try {
  sdkVersion = JSON.parse(readFileSync(join(sdkDir, "node_modules", "ai", "package.json"), "utf8")).version;
} catch (e) {
  fail(`--sdk ${flags.sdk}: no installed ai package (${e.message}); run ./install.sh VERSION first`);
}
const sdk = await import(pathToFileURL(join(sdkDir, "sdk.mjs")).href);
const major = Number(sdkVersion.split(".")[0]);

if (!["needsApproval", "toolApproval"].includes(flags.approval)) fail(`--approval ${flags.approval}: want needsApproval or toolApproval`);
if (flags.approval === "toolApproval" && major < 7) fail(`--approval toolApproval: ai ${sdkVersion} has no toolApproval option (7.x only)`);
if (!["on", "off"].includes(flags["approval-secret"])) fail(`--approval-secret ${flags["approval-secret"]}: want on or off`);
if (!["on", "off"].includes(flags["message-validation"])) fail(`--message-validation ${flags["message-validation"]}: want on or off`);
const defaultSteps = flags["default-steps"] === "sdk" ? null : Number(flags["default-steps"]);
if (defaultSteps !== null && !(Number.isInteger(defaultSteps) && defaultSteps > 0)) fail(`--default-steps ${flags["default-steps"]}: want a step count (a positive integer) or sdk (the SDK's own default)`);
const modelAPIs = { wire: ["openai-chat", "openai-responses", "anthropic-messages"], canonical: ["canonical"] }[flags["model-api"]];
if (!modelAPIs) fail(`--model-api ${flags["model-api"]}: want wire or canonical`);

const agent = new Agent({
  sdk,
  major,
  form: flags.approval,
  secret: flags["approval-secret"] === "on" ? randomBytes(32).toString("base64") : undefined,
  defaultSteps,
  validateMessages: flags["message-validation"] === "on",
});
const clients = new Clients({ sdk, queue: flags["client-queue"] });

// The SDK's documented delivery contract (issue 18: features.contract,
// additive to driver protocol v1). The docs' manual approval flow
// (node_modules/ai/docs/03-ai-sdk-core/15-tools-and-tool-calling.mdx,
// "Handling Approval Requests") collects a response for every approval
// request of the result and pushes them as one tool message, the last of
// the messages, before calling generateText/streamText again; the chat
// sends them when the last assistant message is complete with approval
// responses (lastAssistantMessageIsCompleteWithApprovalResponses,
// docs/04-ai-sdk-ui/03-chatbot-tool-usage.mdx). Answers spread over several
// messages, followed by other messages, or a partial batch are outside it.
const DELIVERY_CONTRACT = { answersInLastMessage: true, wholeBatches: true };
// The harness's info schema takes features.contract (driver protocol v1,
// additive), so the contract is declared.
const DECLARE_DELIVERY_CONTRACT = true;

const info = {
  name: `vercel-ai-adapter (${flags.approval}, ${flags["model-api"] === "canonical" ? "canonical model" : "provider wires"}${flags["approval-secret"] === "on" ? ", signed approvals" : ""}${flags["client-queue"] ? ", client queue" : ""})`,
  version: ADAPTER_VERSION,
  sdk: "ai",
  sdkVersion,
  roles: ["agent", "client"],
  features: {
    modes: ["generate", "stream"],
    dynamicPolicy: true,
    // toolCallConcurrency exists from ai 7.
    concurrency: major >= 7,
    providerExecuted: true,
    // The SDK has no error of its own for a missing toolkit or an unknown tool.
    toolkitErrors: false,
    denialPolicy: "independent",
    toolErrors: "result",
    clientProtocols: ["ui-message-stream"],
    clientTools: true,
    // The SDK's UI tool part has no state before input-streaming.
    clientStates: CLIENT_STATES,
    modelAPIs,
    steps: "loop",
    ...(DECLARE_DELIVERY_CONTRACT ? { contract: DELIVERY_CONTRACT } : {}),
  },
};

const turnFields = ["mode", "model", "tools", "toolkit", "options", "messages", "conversation", "state"];
const toolFields = ["name", "description", "inputSchema", "approval", "policyURL", "executeURL", "providerExecuted", "serverLabel"];

function checkTurn(body) {
  onlyFields(body, "body", turnFields);
  if (!["generate", "stream"].includes(body.mode)) throw badRequest(`mode: want generate or stream, got ${JSON.stringify(body.mode)}`);
  onlyFields(body.model, "model", ["baseURL", "api"]);
  if (typeof body.model.baseURL !== "string") throw badRequest("model.baseURL: missing");
  if (!["provided", "absent", "empty"].includes(body.toolkit)) throw badRequest(`toolkit: want provided, absent or empty, got ${JSON.stringify(body.toolkit)}`);
  onlyFields(body.options ?? {}, "options", ["concurrency", "maxSteps", "denialPolicy"]);
  const names = new Set();
  (body.tools ?? []).forEach((t, i) => {
    onlyFields(t, `tools[${i}]`, toolFields);
    if (typeof t.name !== "string" || t.name === "") throw badRequest(`tools[${i}].name: missing`);
    if (names.has(t.name)) throw badRequest(`tools[${i}].name: ${t.name} is named twice`);
    names.add(t.name);
    if (!["always", "never", "dynamic"].includes(t.approval)) throw badRequest(`tools[${i}].approval: want always, never or dynamic`);
    if (t.approval === "dynamic" && !t.policyURL) throw badRequest(`tools[${i}].policyURL: missing for a dynamic tool`);
  });
}

async function route(req, res) {
  const url = new URL(req.url, "http://adapter");
  const path = url.pathname;
  if (req.method === "GET" && path === "/v1/info") return sendJSON(res, 200, info);
  if (req.method === "POST" && path === "/v1/agent/turn") {
    const body = await readJSON(req);
    checkTurn(body);
    const answer = await agent.turn(body);
    // ACK_ADAPTER_TRACE=FILE appends every turn (request and answer) to FILE, as JSON lines.
    if (process.env.ACK_ADAPTER_TRACE) appendFileSync(process.env.ACK_ADAPTER_TRACE, JSON.stringify({ request: body, answer }) + "\n");
    return sendJSON(res, 200, answer);
  }
  if (path === "/v1/client/sessions" || path.startsWith("/v1/client/sessions/")) {
    return clients.route(req, res, path.slice("/v1/client/sessions".length));
  }
  throw new HTTPError(404, "NotFound", `${req.method} ${path}: no such endpoint`);
}

const server = createServer((req, res) => {
  route(req, res).catch((e) => {
    if (!(e instanceof HTTPError)) process.stderr.write(`adapter: ${e?.stack ?? e}\n`);
    if (!res.headersSent) sendError(res, e);
    else res.destroy();
  });
});
server.requestTimeout = 0; // waits are long polls bounded by the harness
const [host, port] = flags.listen.split(/:(?=[^:]*$)/);
server.listen(Number(port), host, () => {
  const a = server.address();
  process.stdout.write(`http://${a.family === "IPv6" ? `[${a.address}]` : a.address}:${a.port}\n`);
});
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => server.close(() => process.exit(0)));
