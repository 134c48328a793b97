// Declarations: what GET /v1/info says of the adapter. The harness refuses
// a field it does not know in an adapter's answer, so a misspelled feature
// would turn every scenario into an error; declare() finds it when the
// adapter starts, naming the field.

const MODES = ["generate", "stream"];
const PROTOCOLS = ["ag-ui", "ag-ui-legacy", "ui-message-stream"];
const DIALECTS = { "ag-ui": ["tanstack-ai-0.58"], "ag-ui-legacy": ["tanstack-ai-0.42", "tanstack-ai-0.6", "tanstack-ai-0.5"] };
const STATES = ["awaiting-input", "input-streaming", "input-complete", "approval-requested", "approval-responded", "output-available", "output-error", "output-denied"];
const DENIAL_POLICIES = ["independent", "abort-remaining"];

/**
 * DEFAULT_DIALECTS is the dialect each chat protocol is spoken in when a
 * request names none (docs/driver-protocol.md, Dialects); the UI message
 * stream has no dialects.
 */
export const DEFAULT_DIALECTS = Object.freeze({ "ag-ui": "tanstack-ai-0.58", "ag-ui-legacy": "tanstack-ai-0.42" });

const bool = { type: "boolean" };
const list = (items) => ({ type: "list", items });
const one = (values) => ({ type: "enum", values });
const dialects = { type: "dialects" };

/**
 * FEATURES is every feature of driver protocol v1's info, with the values
 * it takes (docs/driver-protocol.md, the feature table; the kit's test
 * holds it to docs/schemas/driver/info.schema.json).
 */
export const FEATURES = Object.freeze({
  modes: list(MODES),
  dynamicPolicy: bool,
  concurrency: bool,
  replayLedger: bool,
  providerExecuted: bool,
  toolkitErrors: bool,
  denialPolicy: one(["", ...DENIAL_POLICIES]),
  denialPolicies: list(DENIAL_POLICIES),
  toolErrors: one(["", "result", "turn-error"]),
  modelAPIs: list(["openai-chat", "openai-responses", "anthropic-messages", "canonical"]),
  steps: one(["", "loop", "single"]),
  resumeState: bool,
  untypedResults: bool,
  noDenialReasons: bool,
  boundApprovals: bool,
  autoPolicies: bool,
  batchedDecisions: bool,
  editedApprovals: bool,
  hostedTools: bool,
  sessionHistory: bool,
  contract: { type: "flags", fields: ["answersInLastMessage", "wholeBatches", "serverSupersedesPending"] },
  clientProtocols: list(PROTOCOLS),
  clientTools: bool,
  clientDialects: dialects,
  clientStates: list(STATES),
  serverProtocols: list(PROTOCOLS),
  serverDialects: dialects,
});

/** AGENT_FEATURES must be declared by a target that plays the agent role. */
export const AGENT_FEATURES = Object.freeze(["modes", "dynamicPolicy", "concurrency", "providerExecuted", "toolkitErrors", "denialPolicy", "toolErrors"]);

const show = (v) => JSON.stringify(v) ?? "nothing";

function checkFeature(name, v) {
  const spec = FEATURES[name];
  const where = `features.${name}`;
  if (!spec) throw new Error(`${where}: not a feature of driver protocol v1 (the harness would refuse the info); the features: ${Object.keys(FEATURES).join(", ")}`);
  switch (spec.type) {
    case "boolean":
      if (typeof v !== "boolean") throw new Error(`${where}: want true or false, got ${show(v)}`);
      return;
    case "enum":
      if (!spec.values.includes(v)) throw new Error(`${where}: want one of ${spec.values.filter(Boolean).join(", ")}, got ${show(v)}`);
      return;
    case "list": {
      if (!Array.isArray(v)) throw new Error(`${where}: want a list of ${spec.items.join(", ")}, got ${show(v)}`);
      const seen = new Set();
      v.forEach((x, i) => {
        if (!spec.items.includes(x)) throw new Error(`${where}[${i}]: want one of ${spec.items.join(", ")}, got ${show(x)}`);
        if (seen.has(x)) throw new Error(`${where}[${i}]: ${x} is listed twice`);
        seen.add(x);
      });
      return;
    }
    case "flags":
      if (v === null || typeof v !== "object" || Array.isArray(v)) throw new Error(`${where}: want an object of booleans`);
      for (const [k, x] of Object.entries(v)) {
        if (!spec.fields.includes(k)) throw new Error(`${where}.${k}: not a field of the contract (${spec.fields.join(", ")})`);
        if (typeof x !== "boolean") throw new Error(`${where}.${k}: want true or false, got ${show(x)}`);
      }
      return;
    case "dialects":
      if (v === null || typeof v !== "object" || Array.isArray(v)) throw new Error(`${where}: want an object of protocol to dialect`);
      for (const [k, x] of Object.entries(v)) {
        if (!DIALECTS[k]) throw new Error(`${where}.${k}: no protocol of that name has dialects (${Object.keys(DIALECTS).join(", ")})`);
        if (!DIALECTS[k].includes(x)) throw new Error(`${where}.${k}: want one of ${DIALECTS[k].join(", ")}, got ${show(x)}`);
      }
      return;
  }
}

/**
 * declare checks an adapter's info (GET /v1/info) and returns it frozen:
 * a name, a version, the roles (agent, client, server), and features the
 * protocol knows, of the right types; an agent declares AGENT_FEATURES.
 * A feature left undefined is left out (so an adapter may write
 * `contract: declared ? {...} : undefined`). A mistake throws an Error
 * naming the field.
 */
export function declare(info) {
  if (info === null || typeof info !== "object") throw new Error("info: want an object");
  for (const k of Object.keys(info)) {
    if (!["name", "version", "sdk", "sdkVersion", "roles", "features"].includes(k)) throw new Error(`info.${k}: not a field of the info (name, version, sdk, sdkVersion, roles, features)`);
  }
  if (typeof info.name !== "string" || info.name === "") throw new Error("info.name: want the adapter's name");
  if (typeof info.version !== "string") throw new Error("info.version: want the adapter's version, a string");
  for (const k of ["sdk", "sdkVersion"]) if (info[k] !== undefined && typeof info[k] !== "string") throw new Error(`info.${k}: want a string`);
  const roles = info.roles;
  if (!Array.isArray(roles) || roles.length === 0) throw new Error("info.roles: want one or more of agent, client, server");
  roles.forEach((r, i) => {
    if (!["agent", "client", "server"].includes(r)) throw new Error(`info.roles[${i}]: want agent, client or server, got ${show(r)}`);
    if (roles.indexOf(r) !== i) throw new Error(`info.roles[${i}]: ${r} is listed twice`);
  });
  const features = {};
  for (const [k, v] of Object.entries(info.features ?? {})) {
    if (v === undefined) continue;
    checkFeature(k, v);
    features[k] = v;
  }
  if (roles.includes("agent")) {
    const missing = AGENT_FEATURES.filter((k) => features[k] === undefined);
    if (missing.length > 0) throw new Error(`features: an agent declares ${missing.join(", ")} too (docs/driver-protocol.md, GET /v1/info)`);
  }
  if (roles.includes("client") && !features.clientProtocols?.length) throw new Error("features.clientProtocols: a client declares the protocols it speaks");
  if (roles.includes("server") && !features.serverProtocols?.length) throw new Error("features.serverProtocols: a server declares the protocols its chat endpoint speaks");
  const out = { name: info.name, version: info.version };
  if (info.sdk !== undefined) out.sdk = info.sdk;
  if (info.sdkVersion !== undefined) out.sdkVersion = info.sdkVersion;
  out.roles = [...roles];
  out.features = features;
  return deepFreeze(out);
}

function deepFreeze(v) {
  if (v && typeof v === "object") {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}
