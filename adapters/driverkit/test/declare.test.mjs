import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { AGENT_FEATURES, FEATURES, declare } from "../index.mjs";

const agent = () => ({
  name: "my-adapter",
  version: "0.1.0",
  sdk: "my-sdk",
  sdkVersion: "1.2.3",
  roles: ["agent"],
  features: { modes: ["generate", "stream"], dynamicPolicy: true, concurrency: false, providerExecuted: false, toolkitErrors: true, denialPolicy: "independent", toolErrors: "result", modelAPIs: ["canonical"] },
});

test("declare returns the info, frozen, leaving out features set to undefined", () => {
  const info = agent();
  info.features.contract = undefined;
  const got = declare(info);
  assert.deepEqual(got, { ...agent(), features: agent().features });
  assert.ok(Object.isFrozen(got) && Object.isFrozen(got.features) && Object.isFrozen(got.features.modes));
});

test("declare refuses what the harness would refuse, naming the field", () => {
  const cases = [
    [(i) => (i.features.dynamicPolicys = true), /features\.dynamicPolicys: not a feature/],
    [(i) => (i.features.concurrency = "yes"), /features\.concurrency: want true or false/],
    [(i) => (i.features.modes = ["generate", "batch"]), /features\.modes\[1\]/],
    [(i) => (i.features.modes = ["stream", "stream"]), /features\.modes\[1\]: stream is listed twice/],
    [(i) => (i.features.toolErrors = "throw"), /features\.toolErrors/],
    [(i) => (i.features.contract = { wholeBatch: true }), /features\.contract\.wholeBatch/],
    [(i) => (i.features.clientDialects = { "ui-message-stream": "x" }), /features\.clientDialects\.ui-message-stream/],
    [(i) => (i.features.serverDialects = { "ag-ui": "tanstack-ai-0.5" }), /features\.serverDialects\.ag-ui/],
    [(i) => delete i.features.toolErrors, /an agent declares toolErrors too/],
    [(i) => (i.roles = []), /info\.roles/],
    [(i) => (i.roles = ["agent", "chat"]), /info\.roles\[1\]/],
    [(i) => (i.roles = ["agent", "client"]), /features\.clientProtocols/],
    [(i) => (i.roles = ["agent", "server"]), /features\.serverProtocols/],
    [(i) => delete i.name, /info\.name/],
    [(i) => (i.version = 1), /info\.version/],
    [(i) => (i.extra = 1), /info\.extra: not a field/],
  ];
  for (const [change, want] of cases) {
    const info = agent();
    change(info);
    assert.throws(() => declare(info), want);
  }
});

test("a client-only target declares its client features alone", () => {
  declare({ name: "c", version: "1", roles: ["client"], features: { clientProtocols: ["ag-ui"], clientDialects: { "ag-ui": "tanstack-ai-0.58" }, clientTools: true } });
});

// The table of features is the protocol's: the info schema's features,
// each with the same values.
test("FEATURES is the info schema's list of features, with its values", () => {
  let schema;
  try {
    schema = JSON.parse(readFileSync(new URL("../../../docs/schemas/driver/info.schema.json", import.meta.url), "utf8"));
  } catch (e) {
    if (e.code === "ENOENT") return; // a copy of the kit outside the repository (conformance adapter init)
    throw e;
  }
  const props = schema.$defs.features.properties;
  assert.deepEqual(Object.keys(FEATURES).sort(), Object.keys(props).sort());
  for (const [name, p] of Object.entries(props)) {
    const f = FEATURES[name];
    if (p.type === "boolean") assert.equal(f.type, "boolean", name);
    else if (p.enum) assert.deepEqual(f.values, p.enum, name);
    else if (p.type === "array") assert.deepEqual(f.items, p.items.enum, name);
    else if (name === "contract") assert.deepEqual(f.fields, Object.keys(p.properties), name);
    else assert.deepEqual(Object.fromEntries(Object.entries(p.properties).map(([k, v]) => [k, v.enum])), { "ag-ui": ["tanstack-ai-0.58"], "ag-ui-legacy": ["tanstack-ai-0.42", "tanstack-ai-0.6", "tanstack-ai-0.5"] }, name);
  }
  const required = schema.allOf.find((c) => c.if?.properties?.roles).then.properties.features.required;
  assert.deepEqual([...AGENT_FEATURES].sort(), [...required].sort());
});
