#!/usr/bin/env node
// Writes the expected-failures file (the baseline) of a Mastra
// certification from its published report.json: each check a scenario
// fails or warns, with the finding of FINDINGS.md that explains it. A
// failure no finding explains is an error naming the scenario and the
// check: it must be read and traced before the run is published.
//
//   node baseline.mjs REPORT_JSON > expected-failures.yaml

import { readFileSync } from "node:fs";

const M = {
  M1: "M1 (FINDINGS.md): one approval at a time: a step's calls run one by one when a tool that can ask approval is registered, and the run suspends at the first call that needs approval (agent-BOxKOk3n.js l.26937, l.29809-29893)",
  M2: "M2 (FINDINGS.md): a call that needs no approval after the suspending one does not run within the turn; it runs when the approval is answered (the foreach stops at the suspension, agent-BOxKOk3n.js l.1618-1636, l.1822-1861)",
  M4: "M4 (FINDINGS.md): a suspended run returns no result for the calls it resolved before it suspended (a free call that ran, a declined call): the results are written in the step after the foreach, which a suspension skips (agent-BOxKOk3n.js l.30518, l.1822-1861, l.29262-29366)",
  M2M4: "M2 and M4 (FINDINGS.md): the free call after the suspending one does not run within the turn (M2), and the one before it ran without its result in the turn (M4)",
  M5: "M5 (FINDINGS.md): a requireApproval function is given the call's input and the request context, not the call's id (tools/types.d.ts, NeedsApprovalFn; agent-BOxKOk3n.js l.26904-26908), so no policy decision names its call; where the step holds several calls, M1 and M2 as well",
  M1REQ05: "M1 (FINDINGS.md): the failing policy fails closed (a throwing requireApproval function requires approval, agent-BOxKOk3n.js l.26906-26911) and nothing runs, but one approval at a time: the turn asks approval for the first call only",
  M4PRE03: "M4 (FINDINGS.md): the free call's result, missing from the suspended turn 1, comes with turn 2 (it ran once, in turn 1)",
};

// Each rule: a check, a test of the scenario id, the reason.
const has = (...parts) => (id) => parts.some((p) => id.includes(p));
const rules = [
  ["REQ-01", () => true, M.M1],
  ["REQ-06", has("mixed-step-no-approval-sibling.yaml"), M.M2M4],
  ["REQ-06", has("requests.feature: every call of a step ends the turn", "wire.feature: within one request every call runs at most once", "dynamic-policy-five-calls.yaml"), M.M2],
  ["REQ-06", has("results-carry-the-tool-output.yaml"), M.M4],
  ["PART-01", has("five-calls-all-denied.yaml"), M.M4],
  ["REQ-04", () => true, M.M5],
  ["REQ-05", has("failing-policy-never-runs.yaml", "panicking-policy-never-runs.yaml"), M.M1REQ05],
  ["PRE-03", has("policy-then-approval-runs.yaml"), M.M4PRE03],
];

const path = process.argv[2];
if (!path) {
  process.stderr.write("usage: node baseline.mjs REPORT_JSON > expected-failures.yaml\n");
  process.exit(2);
}
const run = JSON.parse(readFileSync(path, "utf8"));
const bad = new Set(["fail", "warn", "error", "timeout"]);
const out = [];
const unexplained = [];
for (const s of run.scenarios) {
  for (const [check, verdict] of Object.entries(s.checkVerdicts ?? {}).sort()) {
    if (!bad.has(verdict)) continue;
    const rule = rules.find(([c, test]) => c === check && test(s.id));
    if (!rule) unexplained.push(`${s.id} [${check}: ${verdict}]`);
    else out.push(`  - scenario: ${JSON.stringify(s.id)}\n    check: ${check}\n    reason: ${JSON.stringify(rule[2])}`);
  }
  if (s.verdict === "error" || s.verdict === "timeout") unexplained.push(`${s.id} [${s.verdict}: ${s.message ?? ""}]`);
}
if (unexplained.length > 0) {
  process.stderr.write(`baseline.mjs: ${unexplained.length} failure(s) no finding explains:\n  ${unexplained.join("\n  ")}\n`);
  process.exit(1);
}
process.stdout.write(`# The verdicts this certification is held to (make certify-check): each
# MUST failure and SHOULD warning of the committed report, with its cause
# (FINDINGS.md). A failure not listed fails CI; an entry that passes is
# stale and fails CI too: a fixed SDK release shows up here.
# Written by adapters/mastra/baseline.mjs from the report.
expectedFailures:
${out.join("\n")}
`);
