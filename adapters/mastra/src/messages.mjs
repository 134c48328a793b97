// Mapping between the kit's canonical model and the messages Mastra takes
// and returns (the AI SDK 5 ModelMessage: text, reasoning, file, tool-call
// and tool-result parts, a result's output typed text, json, error-text or
// error-json).
//
// Mastra has no approval parts: a call waiting for approval is a suspended
// run (a snapshot in Mastra's storage, found by its run id), answered with
// approveToolCall / declineToolCall. A declined call's result is text (the
// reason, or Mastra's "Tool call was not approved by the user"), so the
// adapter declares untypedResults.

import { CanonicalError, NotExpressible } from "../../driverkit/index.mjs";

/** Mastra's text of a decline without a reason (agent/tool-approval.d.ts, DEFAULT_TOOL_DECLINE_REASON). */
export const DECLINE_TEXT = "Tool call was not approved by the user";

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

function copy(from, to, keys) {
  for (const k of keys) if (from[k] !== undefined && from[k] !== null) to[k] = from[k];
  return to;
}

function output(o, where) {
  switch (o?.type) {
    case "json":
    case "text":
    case "error-text":
    case "error-json":
      return { type: o.type, value: o.value };
    case "execution-denied":
      // The AI SDK 5 messages have no denial type: Mastra gives a declined
      // call the decline's reason as text.
      return { type: "text", value: typeof o.reason === "string" && o.reason !== "" ? o.reason : DECLINE_TEXT };
  }
  throw new NotExpressible(`${where}.output: a result of type ${JSON.stringify(o?.type)} has no form in Mastra's messages`);
}

/**
 * toModelMessages maps canonical messages to the messages Mastra takes.
 * Approval parts of calls that have their result are left out (Mastra never
 * holds approvals in a history); an approval the conversation answers or
 * leaves waiting without the suspended run it belongs to has no form in
 * Mastra (NotExpressible).
 */
export function toModelMessages(messages) {
  const results = new Set();
  const requests = new Map();
  for (const m of messages) {
    if (!Array.isArray(m?.content)) continue;
    for (const p of m.content) {
      if (p?.type === "tool-result") results.add(p.toolCallId);
      if (p?.type === "tool-approval-request") requests.set(p.approvalId, p.toolCallId);
    }
  }
  const out = [];
  for (const [i, m] of messages.entries()) {
    if (!isObject(m)) throw new NotExpressible(`messages[${i}]: not a message`);
    if (typeof m.content === "string") {
      out.push({ role: m.role, content: m.content });
      continue;
    }
    if (!Array.isArray(m.content)) throw new NotExpressible(`messages[${i}].content: neither a string nor parts`);
    const parts = [];
    for (const [j, p] of m.content.entries()) {
      const where = `messages[${i}].content[${j}]`;
      switch (p?.type) {
        case "text":
        case "reasoning":
          parts.push({ type: p.type, text: p.text });
          break;
        case "file":
          parts.push(copy(p, { type: "file", mediaType: p.mediaType, data: p.data }, ["filename"]));
          break;
        case "tool-call":
          parts.push(copy(p, { type: "tool-call", toolCallId: p.toolCallId, toolName: p.toolName, input: p.input }, ["providerExecuted"]));
          break;
        case "tool-result":
          parts.push(copy(p, { type: "tool-result", toolCallId: p.toolCallId, toolName: p.toolName, output: output(p.output, where) }, ["providerExecuted"]));
          break;
        case "tool-approval-request":
          if (!results.has(p.toolCallId)) throw new NotExpressible(`${where}: the approval ${p.approvalId} waits without the suspended run it belongs to: Mastra's approvals are suspended runs`);
          break;
        case "tool-approval-response":
          if (!results.has(requests.get(p.approvalId))) throw new NotExpressible(`${where}: an answer to ${JSON.stringify(p.approvalId)} without the suspended run it belongs to: Mastra's approvals are suspended runs`);
          break;
        default:
          throw new NotExpressible(`${where}.type: ${JSON.stringify(p?.type)} has no form in Mastra's messages`);
      }
    }
    if (parts.length > 0) out.push({ role: m.role, content: parts });
  }
  return out;
}

function canonicalOutput(o) {
  switch (o?.type) {
    case "json":
    case "text":
    case "error-text":
    case "error-json":
      return { type: o.type, value: o.value === undefined ? null : o.value };
  }
  throw new CanonicalError(`a result output of type ${JSON.stringify(o?.type)} has no canonical form`);
}

/** toCanonicalPart maps one part of a message Mastra returned. */
export function toCanonicalPart(p) {
  switch (p.type) {
    case "text":
    case "reasoning":
      return { type: p.type, text: p.text ?? "" };
    case "file":
      return copy(p, { type: "file", mediaType: p.mediaType, data: typeof p.data === "string" ? p.data : Buffer.from(p.data).toString("base64") }, ["filename"]);
    case "tool-call":
      return copy(p, { type: "tool-call", toolCallId: p.toolCallId, toolName: p.toolName, input: p.input === undefined ? null : p.input }, ["providerExecuted"]);
    case "tool-result":
      return copy(p, { type: "tool-result", toolCallId: p.toolCallId, toolName: p.toolName, output: canonicalOutput(p.output) }, ["providerExecuted"]);
  }
  throw new CanonicalError(`a part of type ${JSON.stringify(p.type)} has no canonical form`);
}

/** toCanonicalMessages maps messages Mastra returned (response.messages). */
export function toCanonicalMessages(messages) {
  return messages.map((m) => ({ role: m.role, content: typeof m.content === "string" ? m.content : m.content.map(toCanonicalPart) }));
}
