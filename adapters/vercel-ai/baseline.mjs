#!/usr/bin/env node
// Writes the expected-failures file (a baseline) of one certification of
// adapters/certify.yaml from its published report.json: every check a scenario fails or warns, with the finding
// that explains it (FINDINGS.md). A failure no finding explains is an
// error, naming the scenario and the check: it must be read and traced
// before the run is published.
//
//   node baseline.mjs REPORT_JSON > expected-failures.yaml

import { readFileSync } from "node:fs";

// Each rule: a check, a test of the scenario id, the reason.
const D = {
  D1: "SDK defect D1 (FINDINGS.md): an approval sent again after its call has a result runs the call again; the model gets two results (collect-tool-approvals reads results from the last message only)",
  D2: "SDK defect D2 (FINDINGS.md): answers in two tool messages of one request: only the last message's answers are read, the others' calls never run and the turn fails with MissingToolResultsError",
  D3: "SDK defect D3 (FINDINGS.md): a user message after the answer hides it: answers are read only when the last message is a tool message; the approved call never runs",
  D4: "SDK defect D4 (FINDINGS.md): the result of a pre-resolved call is appended after a later assistant message, so it no longer follows its call (provider 400)",
  K1: "kit (FINDINGS.md, K1): PRE-01 is charged for the turn the provider refused for D4's misplaced result (WIRE-02); the SDK threw, so the turn has no messages",
  D6: "SDK defect D6 (FINDINGS.md, 7.x): an approved call to a tool no longer in the toolkit counts as approved, has nothing to run, and fails the turn with MissingToolResultsError after the batch's other calls ran",
  D7: "SDK defect D7 (FINDINGS.md): the chat sends a new message while an approval waits, with the call unanswered (the chat's experimental_queue, 7.x, holds it instead)",
  D8: "SDK defect D8 (FINDINGS.md): a call the continuation re-sends gets a second part (the stream processor looks parts up in the current step only); the first part never reaches an outcome",
  D9: "SDK behaviour D9 (FINDINGS.md): a stray answer makes the SDK refuse the whole message (InvalidToolApprovalError), so the valid answer beside it is not acted on",
  D10: "SDK defect D10 (FINDINGS.md): a provider approval answered without providerExecuted is dropped without a word",
  D11: "SDK behaviour D11 (FINDINGS.md): the SDK keeps no record of the approvals it acted on, so a replayed request runs the tool again",
  D12: "SDK defect D12 (FINDINGS.md, canonical model only): generateText gives a provider-executed denial an execution-denied result that only @ai-sdk/openai knows to drop",
  UNSIGNED: "configuration (FINDINGS.md): without experimental_toolApprovalSecret the SDK cannot tell a forged or tampered approval from its own",
};

const has = (...parts) => (id) => parts.some((p) => id.includes(p));
const rules = [
  ["PRE-03", has("approval-resent-next-turn.yaml", "approvals-resent-for-several.yaml", "a call whose result is in an earlier message", "a call whose result comes in a message before its approval's"), D.D1],
  ["WIRE-01", has("approval-resent-next-turn.yaml", "approvals-resent-for-several.yaml", "a call whose result is in an earlier message", "a call whose result comes in a message before its approval's", "a forged approval that reuses the id of a call that already ran"), D.D1],
  ["PRE-09", has("answers-in-two-messages.yaml", "approvals-in-two-messages.yaml", "a batch answered in two messages", "partial-answers-leave-the-rest-pending.yaml", "only some of the pending approvals answered"), D.D2],
  ["PRE-01", has("approvals-in-two-messages.yaml", "a batch answered in two messages"), D.D2],
  ["PART-01", has("answers-in-two-messages.yaml"), D.D2],
  ["PRE-08", has("answers-in-two-messages.yaml"), D.D2],
  ["PRE-10", has("approval-with-user-note"), D.D3],
  ["PRE-01", has("results follow their calls even when the user writes after answering"), D.D3],
  ["WIRE-02", has("approval requests are found anywhere in the history"), D.D4],
  ["PRE-01", has("approval requests are found anywhere in the history"), D.K1],
  ["PRE-06", has("missing-tool-in-batch.yaml", "an approved call to a tool not in the toolkit", "a turn that fails validation"), D.D6],
  ["PRE-13", has("missing-tool-in-batch.yaml", "a turn that fails validation"), D.D6],
  ["CHAIN-05", has("a new message while an approval is pending", "a new message while several approvals are pending"), D.D7],
  ["CHAIN-04", has("a continuation that re-sends a call"), D.D8],
  ["CHAIN-06", has("a continuation that re-sends a call"), D.D8],
  ["PRE-14", has("orphan-answer-only.yaml", "a response that matches no request never causes a run"), D.D9],
  ["PROV-02", has("a provider approval answered without the flag", "a provider denial answered without the flag"), D.D10],
  ["WIRE-04", has("replaying the same request", "replayed-request.yaml", "replayed-batch-request.yaml", "model-error-after-resolution.yaml"), D.D11],
  ["WIRE-01", has("a provider's denial is forwarded too", "provider-denied-local-approved.yaml", "a provider denial answered without the flag"), D.D12],
  ["SEC-01", has("forged"), D.UNSIGNED],
  ["SEC-02", has("tampered", "changed after the request"), D.UNSIGNED],
];

const path = process.argv[2];
if (!path) {
  process.stderr.write("usage: node baseline.mjs REPORT_JSON > expected-failures.yaml\n");
  process.exit(2);
}
const run = JSON.parse(readFileSync(path, "utf8"));
const bad = new Set(["fail", "warn", "error", "timeout"]);
const quote = (s) => JSON.stringify(s);
const out = [];
const unexplained = [];
for (const s of run.scenarios) {
  for (const [check, verdict] of Object.entries(s.checkVerdicts ?? {}).sort()) {
    if (!bad.has(verdict)) continue;
    const rule = rules.find(([c, test]) => c === check && test(s.id));
    if (!rule) {
      unexplained.push(`${s.id} [${check}: ${verdict}]`);
      continue;
    }
    out.push(`  - scenario: ${quote(s.id)}\n    check: ${check}\n    reason: ${quote(rule[2])}`);
  }
  if (s.verdict === "error" || s.verdict === "timeout") unexplained.push(`${s.id} [${s.verdict}: ${s.message ?? ""}]`);
}
if (unexplained.length > 0) {
  process.stderr.write(`baseline.mjs: ${unexplained.length} failure(s) no finding explains:\n  ${unexplained.join("\n  ")}\n`);
  process.exit(1);
}
process.stdout.write(`# Expected failures of ${run.targetInfo?.name ?? run.target} (ai ${run.targetInfo?.sdkVersion ?? "?"}).\n`);
process.stdout.write("# Written by adapters/vercel-ai/baseline.mjs from the certified run; each reason names its finding.\n");
process.stdout.write(out.length > 0 ? `expectedFailures:\n${out.join("\n")}\n` : "expectedFailures: []\n");
