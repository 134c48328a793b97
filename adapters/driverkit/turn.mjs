// The agent role's turn: the checks every turn gets before the SDK sees
// it, the answer of a turn the SDK could not express, the answer of a
// failed turn, and the stream events and answers of the canonical model
// that every adapter builds the same way.

/**
 * NotExpressible is an input the SDK has no form for (an answer its API
 * cannot take, a part it has no type for). agentTurn answers it as the
 * turn error NotExpressible: the scenario is then not applicable, with
 * the message as its reason. Throw it from anywhere in a turn.
 */
export class NotExpressible extends Error {}

/**
 * CanonicalError is something the SDK produced that the canonical model
 * cannot hold. It is the adapter's failure, not the SDK's: agentTurn lets
 * it through, and the request fails with 500 Internal (the scenario
 * errors) rather than answering a turn that drops it.
 */
export class CanonicalError extends Error {}

/** The turn error codes of driver protocol v1. */
export const ERROR_CODES = Object.freeze(["ToolkitRequired", "ToolNotFound", "InvalidApproval", "MissingToolResults", "InvalidMessages", "ToolExecution", "Model", "Other", "NotExpressible"]);

/** sdkErrorOf is an SDK error as the turn error's sdkError shows it: its class and message. */
export function sdkErrorOf(e) {
  return e instanceof Error ? `${e.constructor.name}: ${e.message}` : String(e);
}

/**
 * turnError is the turn error {code, message, sdkError} of an error the SDK
 * threw: code is the protocol's code the adapter mapped it to; the message
 * adds the error's cause, if any.
 */
export function turnError(code, e) {
  let message = e instanceof Error ? e.message : String(e);
  if (e?.cause instanceof Error) message += ` (cause: ${e.cause.message})`;
  return { code, message, sdkError: sdkErrorOf(e) };
}

/**
 * failedTurn is the answer of a turn that failed: {error}, and in stream
 * mode the events streamed so far followed by an error event.
 */
export function failedTurn(req, error, events = []) {
  if (req.mode !== "stream") return { error };
  return { error, events: [...events, { type: "error", code: error.code, message: error.message }] };
}

/** withFinish is a stream's events ended by the turn's finish event. */
export function withFinish(events, finishReason) {
  return [...events, { type: "finish", finishReason }];
}

/**
 * eventsOf builds a turn's stream events from the messages it added, for
 * an SDK whose stream an adapter cannot map part by part: the results of
 * the answers the turn resolved first; then per step start-step, its text
 * (the streamed deltas of that step when given: textDeltas[step], a list
 * of strings), its calls and approval requests, its results, finish-step;
 * and finish. Steps before the last finished with tool-calls.
 */
export function eventsOf(messages, finishReason, { textDeltas = [] } = {}) {
  const events = [];
  let step = -1;
  let open = false;
  for (const m of messages) {
    if (m.role === "assistant") {
      if (open) events.push({ type: "finish-step", finishReason: "tool-calls" });
      step++;
      events.push({ type: "start-step" });
      open = true;
      const streamed = textDeltas[step];
      if (streamed) for (const t of streamed) events.push({ type: "text-delta", text: t });
      const content = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
      for (const p of content) {
        if (p.type === "text" && !streamed) events.push({ type: "text-delta", text: p.text });
        if (p.type === "tool-call" || p.type === "tool-approval-request" || p.type === "tool-result") events.push(p);
      }
    } else if (m.role === "tool") {
      for (const p of m.content) if (p.type === "tool-result") events.push(p);
    }
  }
  if (open) events.push({ type: "finish-step", finishReason });
  events.push({ type: "finish", finishReason });
  return events;
}

/** lastAssistant is the index of the conversation's last assistant message (-1: none). */
export function lastAssistant(messages) {
  let last = -1;
  messages.forEach((m, i) => {
    if (m?.role === "assistant") last = i;
  });
  return last;
}

/**
 * trailingAnswers reads the answers of a turn that resumes a paused run:
 * the tool-approval-response parts of the messages after the last
 * assistant message, each {part, where, message}. For an SDK that resumes
 * with answers only, anything else there has no form: a message other than
 * a tool message, a part other than an answer (unless skip(part, i) says
 * the SDK already holds it), a malformed answer; each is NotExpressible,
 * in these words:
 *
 *   `${where}: a ${role} message beside ${beside}: ${only}`
 *   `${where}: a ${type} part beside ${beside}: ${only}`
 *   `${where}: a malformed answer (approvalId …, approved …): ${answerIs}`
 */
export function trailingAnswers(messages, { beside = "answers to a paused run", only = "the SDK resumes it with answers only", answerIs = "the SDK's answer is an approval or a denial of one request", skip } = {}) {
  const last = lastAssistant(messages);
  const answers = [];
  for (const [i, m] of messages.entries()) {
    if (i <= last) continue;
    if (m?.role !== "tool" || !Array.isArray(m.content)) throw new NotExpressible(`messages[${i}]: a ${m?.role} message beside ${beside}: ${only}`);
    for (const [j, p] of m.content.entries()) {
      const where = `messages[${i}].content[${j}]`;
      if (skip?.(p, i)) continue;
      if (p?.type !== "tool-approval-response") throw new NotExpressible(`${where}: a ${p?.type} part beside ${beside}: ${only}`);
      if (typeof p.approvalId !== "string" || typeof p.approved !== "boolean" || (p.reason !== undefined && typeof p.reason !== "string")) {
        throw new NotExpressible(`${where}: a malformed answer (approvalId ${JSON.stringify(p.approvalId)}, approved ${JSON.stringify(p.approved)}): ${answerIs}`);
      }
      answers.push({ part: p, where, message: i });
    }
  }
  return answers;
}

/**
 * agentTurn runs one turn of an adapter's agent (agent.turn(req), the SDK
 * mapping) after the checks every turn gets, and answers what the protocol
 * wants of it:
 *
 *   - a model API the adapter did not declare (features.modelAPIs) is
 *     NotExpressible, never a silent fallback to another API;
 *   - a denial policy it did not declare (features.denialPolicy and
 *     denialPolicies) is NotExpressible;
 *   - messages that are not a list are the turn error InvalidMessages;
 *   - a NotExpressible thrown by the mapping is the turn error
 *     NotExpressible; any other error fails the request (500 Internal).
 */
export async function agentTurn(agent, req, info) {
  const f = info?.features ?? {};
  const apis = f.modelAPIs ?? ["openai-chat", "openai-responses", "anthropic-messages"];
  if (!apis.includes(req.model?.api)) {
    return { error: { code: "NotExpressible", message: `model.api ${req.model?.api} is not among the declared modelAPIs (${apis.join(", ")})` } };
  }
  const policy = req.options?.denialPolicy;
  const policies = [f.denialPolicy || "independent", ...(f.denialPolicies ?? [])];
  if (policy && !policies.includes(policy)) {
    return { error: { code: "NotExpressible", message: `denial policy ${policy}: the SDK decides by ${policies.join(" or ")} only` } };
  }
  if (!Array.isArray(req.messages)) return { error: { code: "InvalidMessages", message: "messages: not an array" } };
  try {
    return await agent.turn(req);
  } catch (e) {
    if (e instanceof NotExpressible) return { error: { code: "NotExpressible", message: e.message } };
    throw e;
  }
}
