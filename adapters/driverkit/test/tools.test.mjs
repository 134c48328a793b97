import { test } from "node:test";
import assert from "node:assert/strict";

import { PolicyFailed, ToolFailed, askPolicy, decidePolicy, executeTool } from "../index.mjs";
import { listen, readAll } from "./helpers.mjs";

// harness stands in for the harness's callbacks: answers[path] is the JSON
// it answers ("drop": the connection is dropped); bodies the requests.
async function harness(answers) {
  const bodies = [];
  const srv = await listen(async (req, res) => {
    bodies.push({ path: req.url, body: JSON.parse(await readAll(req)) });
    const a = answers[req.url];
    if (a === "drop") return req.socket.destroy();
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(a));
  });
  return { ...srv, bodies };
}

test("executeTool posts the call to executeURL and returns its output", async (t) => {
  const h = await harness({ "/run": { output: { deleted: "/a" } }, "/fail": { error: "disk on fire" } });
  t.after(h.close);
  const tool = { name: "deleteFile", executeURL: `${h.url}/run` };
  assert.deepEqual(await executeTool(tool, { toolCallId: "c1", input: { path: "/a" } }), { deleted: "/a" });
  assert.deepEqual(await executeTool(tool, { toolCallId: "c2" }), { deleted: "/a" });
  assert.deepEqual(h.bodies.map((b) => b.body), [{ toolCallId: "c1", input: { path: "/a" } }, { toolCallId: "c2", input: null }]);
  await assert.rejects(executeTool({ ...tool, executeURL: `${h.url}/fail` }, { toolCallId: "c3", input: {} }), (e) => {
    // An Error to the SDK (String(e) is "Error: ..."), marked as the tool's failure.
    assert.ok(e instanceof ToolFailed && e.toolFailed === true);
    assert.equal(String(e), "Error: disk on fire");
    return true;
  });
});

test("askPolicy posts the call and the conversation, and returns needsApproval", async (t) => {
  const h = await harness({ "/yes": { needsApproval: true }, "/no": { needsApproval: false } });
  t.after(h.close);
  const messages = [{ role: "user", content: "hi" }];
  assert.equal(await askPolicy({ name: "t", policyURL: `${h.url}/yes` }, { toolCallId: "c1", input: { a: 1 }, messages }), true);
  assert.equal(await askPolicy({ name: "t", policyURL: `${h.url}/no` }, { input: { a: 1 } }), false);
  // toolCallId is left out when the SDK gives its policy none.
  assert.deepEqual(h.bodies.map((b) => b.body), [{ toolCallId: "c1", input: { a: 1 }, messages }, { input: { a: 1 }, messages: [] }]);
});

test("askPolicy throws PolicyFailed for a failing, wrong or dropped policy", async (t) => {
  const h = await harness({ "/error": { error: "policy crashed" }, "/wrong": { needsApproval: "maybe" }, "/drop": "drop" });
  t.after(h.close);
  const ask = (path) => askPolicy({ name: "t", policyURL: `${h.url}${path}` }, { toolCallId: "c", input: {} });
  await assert.rejects(ask("/error"), (e) => e instanceof PolicyFailed && e.message === "policy crashed");
  await assert.rejects(ask("/wrong"), (e) => e instanceof PolicyFailed && /needsApproval is not a boolean/.test(e.message));
  await assert.rejects(ask("/drop"), (e) => e instanceof PolicyFailed && /^the policy of t failed: /.test(e.message));
});

test("decidePolicy reads a decision or needsApproval", async (t) => {
  const h = await harness({
    "/approved": { decision: "approved" },
    "/denied": { decision: "denied", reason: "not on fridays" },
    "/ask": { needsApproval: true },
    "/free": { needsApproval: false },
    "/odd": { decision: "later" },
  });
  t.after(h.close);
  const decide = (path) => decidePolicy({ name: "t", policyURL: `${h.url}${path}` }, { toolCallId: "c", input: {} });
  assert.deepEqual(await decide("/approved"), { outcome: "approved" });
  assert.deepEqual(await decide("/denied"), { outcome: "denied", reason: "not on fridays" });
  assert.deepEqual(await decide("/ask"), { outcome: "ask" });
  assert.deepEqual(await decide("/free"), { outcome: "free" });
  await assert.rejects(decide("/odd"), PolicyFailed);
});
