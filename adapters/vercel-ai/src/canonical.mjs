// Mapping between the AI SDK's ModelMessage and the kit's canonical model.
//
// The canonical model follows the AI SDK's ModelMessage, so the mapping is
// mostly a copy. What the SDK returns is copied field by field onto the
// fields the canonical model has: the SDK's extra fields (inputSchemaInput,
// providerMetadata on some parts) have no canonical place and are left out,
// and a part the canonical model has no type for is an error that names it,
// never dropped in silence.

/** CanonicalError is an SDK value the canonical model cannot hold. */
export class CanonicalError extends Error {}

const outputTypes = new Set(["json", "text", "error-text", "error-json", "execution-denied"]);

function copy(from, to, keys) {
  for (const k of keys) {
    if (from[k] !== undefined && from[k] !== null) to[k] = from[k];
  }
  return to;
}

/** toCanonicalOutput maps a tool result's output. */
export function toCanonicalOutput(o, where) {
  if (o == null || typeof o !== "object" || !outputTypes.has(o.type)) {
    throw new CanonicalError(`${where}.output: the SDK's output type ${JSON.stringify(o?.type)} has no canonical form`);
  }
  const out = { type: o.type };
  if (o.type === "execution-denied") {
    copy(o, out, ["reason", "providerOptions"]);
  } else {
    out.value = o.value === undefined ? null : o.value;
    copy(o, out, ["providerOptions"]);
  }
  return out;
}

/** toCanonicalPart maps one content part of a ModelMessage. */
export function toCanonicalPart(p, where) {
  switch (p.type) {
    case "text":
    case "reasoning":
      return copy(p, { type: p.type, text: p.text ?? "" }, ["providerOptions"]);
    case "file": {
      if (typeof p.data !== "string") {
        throw new CanonicalError(`${where}: a file part whose data is not a string has no canonical form`);
      }
      return copy(p, { type: "file", mediaType: p.mediaType, data: p.data }, ["filename", "providerOptions"]);
    }
    case "tool-call":
      return copy(p, { type: "tool-call", toolCallId: p.toolCallId, toolName: p.toolName, input: p.input === undefined ? null : p.input },
        ["providerExecuted", "providerOptions"]);
    case "tool-result":
      return copy(p, { type: "tool-result", toolCallId: p.toolCallId, toolName: p.toolName, output: toCanonicalOutput(p.output, where) },
        ["providerExecuted", "providerOptions"]);
    case "tool-approval-request":
      return copy(p, { type: "tool-approval-request", approvalId: p.approvalId, toolCallId: p.toolCallId },
        ["signature", "reason", "isAutomatic", "providerOptions"]);
    case "tool-approval-response":
      return copy(p, { type: "tool-approval-response", approvalId: p.approvalId, approved: p.approved },
        ["reason", "providerExecuted", "providerOptions"]);
  }
  throw new CanonicalError(`${where}.type: the SDK's part type ${JSON.stringify(p.type)} has no canonical form`);
}

// isBookkeeping: the custom part @ai-sdk/anthropic streams at the start of
// every message (kind anthropic.message_start: the message id, model and
// usage). The canonical model has no custom part; the SDK sends nothing for
// this kind back to the provider (convert-to-anthropic-prompt.ts reads only
// the anthropic.fallback kind), so leaving it out changes no later prompt.
// Any other custom part is an error.
function isBookkeeping(p) {
  return p.type === "custom" && p.kind === "anthropic.message_start";
}

/** toCanonicalMessages maps ModelMessages (a turn's response messages, a policy's messages). */
export function toCanonicalMessages(messages, prefix = "messages") {
  return messages.map((m, i) => {
    const where = `${prefix}[${i}]`;
    const out = { role: m.role };
    if (typeof m.content === "string") {
      out.content = m.content;
    } else {
      out.content = m.content
        .filter((p) => !isBookkeeping(p))
        .map((p, j) => toCanonicalPart(p, `${where}.content[${j}]`));
    }
    return copy(m, out, ["providerOptions"]);
  });
}

/**
 * fromCanonicalMessages validates the canonical messages with the SDK's own
 * exported ModelMessage schema (the SDK does not validate its input since
 * ai 7.0.155; its docs leave that to the application) and returns them as
 * they came, or the first message the schema refuses, by index. The schema
 * is a gate only: what it parses is not passed on, because it drops fields
 * the SDK's own types have (providerExecuted on a tool-approval-response;
 * see FINDINGS-draft.md).
 */
export function fromCanonicalMessages(ai, messages) {
  if (!Array.isArray(messages)) {
    return { error: "messages: not an array" };
  }
  for (let i = 0; i < messages.length; i++) {
    const r = ai.modelMessageSchema.safeParse(messages[i]);
    if (!r.success) {
      const issue = r.error.issues[0];
      const path = [`messages[${i}]`, ...(issue?.path ?? [])].join(".");
      return { error: `${path}: ${issue?.message ?? "does not match the SDK's ModelMessage schema"}`, sdkError: String(r.error) };
    }
  }
  return { messages };
}
