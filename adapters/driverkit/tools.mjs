// The harness's tools and policies, as an SDK's tool and policy functions
// call them: each run of a tool and each evaluation of a dynamic policy is
// a callback to the harness (docs/driver-protocol.md, Callbacks), which
// counts the runs, orders them against the model calls, and injects
// delays and failures.

import { postJSON } from "./http.mjs";

/**
 * ToolFailed is a tool's failure as the harness answered it ({error}):
 * throw it into the SDK, which handles it as it handles any throwing tool
 * (ERR-02). Its name stays "Error", so an SDK that shows String(error) to
 * the model shows what it shows for any Error; `toolFailed` marks it for
 * an adapter that must find it again in what the SDK throws.
 */
export class ToolFailed extends Error {
  constructor(message) {
    super(message);
    this.toolFailed = true;
  }
}

/**
 * PolicyFailed is a dynamic policy that failed to evaluate: the harness
 * answered {error}, answered something else than a decision, or dropped
 * the callback (the scenarios of a crashing policy). How the SDK treats a
 * throwing policy is what REQ-05 checks.
 */
export class PolicyFailed extends Error {}

/**
 * executeTool runs a tool of the turn: it posts {toolCallId, input} to the
 * tool's executeURL and returns the output. An {error} answer throws
 * ToolFailed; a callback that fails (a refused connection, an error status)
 * throws the Error postJSON gives.
 */
export async function executeTool(tool, { toolCallId, input, signal } = {}) {
  const r = await postJSON(tool.executeURL, { toolCallId, input: input ?? null }, signal);
  if (typeof r.error === "string") throw new ToolFailed(r.error);
  return r.output;
}

// policyAnswer posts a policy callback and returns its answer, or throws
// PolicyFailed.
async function policyAnswer(tool, { toolCallId, input, messages, signal }) {
  let r;
  try {
    r = await postJSON(tool.policyURL, { toolCallId, input: input ?? null, messages: messages ?? [] }, signal);
  } catch (e) {
    throw new PolicyFailed(`the policy of ${tool.name} failed: ${e.message}`);
  }
  if (typeof r?.error === "string") throw new PolicyFailed(r.error);
  return r;
}

/**
 * askPolicy evaluates a dynamic tool's policy for one call: it posts
 * {toolCallId, input, messages} to the tool's policyURL (toolCallId left
 * out when the SDK gives its policies none) and returns whether the call
 * needs approval. messages is the conversation the SDK gives its policy,
 * in the canonical model. A failure throws PolicyFailed.
 */
export async function askPolicy(tool, call) {
  const r = await policyAnswer(tool, call);
  if (typeof r.needsApproval !== "boolean") throw new PolicyFailed("policy callback: needsApproval is not a boolean");
  return r.needsApproval;
}

/**
 * decidePolicy is askPolicy for an SDK whose policies may decide on their
 * own (features.autoPolicies): it returns {outcome, reason?}, the outcome
 * one of "free" (no approval needed), "ask" (approval needed), "approved"
 * or "denied" (decided by the policy, with its reason).
 */
export async function decidePolicy(tool, call) {
  const r = await policyAnswer(tool, call);
  if (r.decision === "approved") return { outcome: "approved" };
  if (r.decision === "denied") return { outcome: "denied", ...(typeof r.reason === "string" ? { reason: r.reason } : {}) };
  if (typeof r.needsApproval === "boolean") return { outcome: r.needsApproval ? "ask" : "free" };
  throw new PolicyFailed(`policy callback: want needsApproval or a decision, got ${JSON.stringify(r)}`);
}
