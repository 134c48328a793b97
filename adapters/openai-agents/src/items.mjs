// Mapping between the kit's canonical model and the OpenAI Agents SDK's
// items (AgentInputItem for a run's input, RunItem for what a run made).
//
// The SDK's results carry no type: a function_call_result's output is
// text, whatever the tool returned (an object as its JSON), a denial is the
// text of state.reject's message (or the SDK's fixed "Tool execution was
// not approved."), a failing tool the text of its errorFunction. So every
// result maps to a canonical `text` output (the adapter declares
// untypedResults); what reaches the model is what is judged.
//
// The SDK has no approval parts either: an approval is a RunToolApprovalItem
// among a run's interruptions, kept in the RunState. In the canonical model
// it is a tool-approval-request whose approvalId is the SDK's own handle of
// the approval: the call id of a function call (the SDK records approvals
// by tool name and call id), the approval request id of a hosted MCP call.

import { CanonicalError, NotExpressible } from "../../driverkit/index.mjs";

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

// outputText is a canonical output as the text a function_call_result holds.
function outputText(output, denialText) {
  switch (output?.type) {
    case "text":
    case "error-text":
      return typeof output.value === "string" ? output.value : JSON.stringify(output.value ?? null);
    case "json":
    case "error-json":
      return JSON.stringify(output.value ?? null);
    case "execution-denied":
      return typeof output.reason === "string" && output.reason !== "" ? output.reason : denialText;
  }
  throw new NotExpressible(`a tool result's output of type ${JSON.stringify(output?.type)} has no form in the SDK's items`);
}

function userContent(content) {
  if (typeof content === "string") return content;
  return content.map((p) => {
    if (p.type === "text") return { type: "input_text", text: p.text };
    if (p.type === "file") {
      const url = /^[a-z]+:/i.test(p.data) ? p.data : `data:${p.mediaType};base64,${p.data}`;
      if (String(p.mediaType).startsWith("image/")) return { type: "input_image", image: url };
      return { type: "input_file", file: url, filename: p.filename };
    }
    throw new NotExpressible(`a user part of type ${JSON.stringify(p.type)} has no form in the SDK's items`);
  });
}

/**
 * toInputItems maps canonical messages to the SDK's input items, for a run
 * that starts from the conversation. Approval parts have no item: those of
 * calls that have their result are left out (the SDK never sees approvals in
 * a history); an approval the conversation answers, or leaves waiting,
 * without the run state it belongs to has no form in the SDK
 * (NotExpressible).
 *
 * denialText is the SDK's own text of a denial without a reason.
 */
export function toInputItems(messages, denialText) {
  const results = new Set();
  for (const m of messages) {
    if (Array.isArray(m?.content)) for (const p of m.content) if (p?.type === "tool-result") results.add(p.toolCallId);
  }
  const requests = new Map(); // approvalId -> toolCallId
  for (const m of messages) {
    if (Array.isArray(m?.content)) for (const p of m.content) if (p?.type === "tool-approval-request") requests.set(p.approvalId, p.toolCallId);
  }
  const items = [];
  for (const [i, m] of messages.entries()) {
    if (!isObject(m)) throw new NotExpressible(`messages[${i}]: not a message`);
    switch (m.role) {
      case "system":
        if (typeof m.content !== "string") throw new NotExpressible(`messages[${i}]: a system message whose content is not a string`);
        items.push({ role: "system", content: m.content });
        break;
      case "user":
        items.push({ role: "user", content: userContent(m.content) });
        break;
      case "assistant": {
        const content = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
        let text = [];
        const flush = () => {
          if (text.length) items.push({ type: "message", role: "assistant", status: "completed", content: text });
          text = [];
        };
        for (const p of content) {
          switch (p.type) {
            case "text":
              text.push({ type: "output_text", text: p.text });
              break;
            case "reasoning":
              flush();
              items.push({ type: "reasoning", content: [{ type: "input_text", text: p.text }] });
              break;
            case "tool-call":
              flush();
              if (p.providerExecuted) throw new NotExpressible(`messages[${i}]: a provider-executed call in the history has no input item the SDK builds from a conversation`);
              items.push({ type: "function_call", callId: p.toolCallId, name: p.toolName, arguments: JSON.stringify(p.input ?? {}), status: "completed" });
              break;
            case "tool-approval-request":
              if (!results.has(p.toolCallId)) {
                throw new NotExpressible(`messages[${i}]: the approval ${p.approvalId} waits without the run state it belongs to: the SDK's approvals are the interruptions of its RunState`);
              }
              break;
            default:
              throw new NotExpressible(`messages[${i}]: an assistant part of type ${JSON.stringify(p.type)} has no form in the SDK's items`);
          }
        }
        flush();
        break;
      }
      case "tool":
        for (const p of Array.isArray(m.content) ? m.content : []) {
          if (p?.type === "tool-result") {
            items.push({ type: "function_call_result", callId: p.toolCallId, name: p.toolName, status: "completed", output: { type: "text", text: outputText(p.output, denialText) } });
          } else if (p?.type === "tool-approval-response") {
            if (!results.has(requests.get(p.approvalId))) {
              throw new NotExpressible(`messages[${i}]: an answer to approval ${JSON.stringify(p.approvalId)} without the run state it belongs to: the SDK's approvals are the interruptions of its RunState`);
            }
          } else {
            throw new NotExpressible(`messages[${i}]: a tool part of type ${JSON.stringify(p?.type)} has no form in the SDK's items`);
          }
        }
        break;
      default:
        throw new NotExpressible(`messages[${i}].role: ${JSON.stringify(m.role)} has no form in the SDK's items`);
    }
  }
  return items;
}

function parseArguments(text) {
  if (typeof text !== "string" || text === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

// resultText is a function_call_result's output as text.
function resultText(output) {
  if (typeof output === "string") return output;
  if (isObject(output) && output.type === "text") return output.text;
  if (Array.isArray(output) && output.every((o) => o?.type === "input_text")) return output.map((o) => o.text).join("");
  throw new CanonicalError(`a function_call_result output ${JSON.stringify(output)} has no canonical form`);
}

/** approvalIdOf is the handle the adapter gives a RunToolApprovalItem. */
export function approvalIdOf(item) {
  const raw = item.rawItem;
  if (raw.type === "hosted_tool_call") return raw.providerData?.id ?? raw.id;
  return raw.callId;
}

/**
 * itemParts maps one RunItem to canonical parts: {side: "assistant" | "tool", part}.
 */
function itemParts(item) {
  const raw = item.rawItem;
  switch (item.type) {
    case "message_output_item":
      return (raw.content ?? []).map((c) => {
        if (c.type === "output_text") return { side: "assistant", part: { type: "text", text: c.text } };
        if (c.type === "refusal") return { side: "assistant", part: { type: "text", text: c.refusal } };
        throw new CanonicalError(`an assistant content of type ${c.type} has no canonical form`);
      });
    case "reasoning_item":
      return [{ side: "assistant", part: { type: "reasoning", text: (raw.content ?? []).map((c) => c.text).join("") } }];
    case "tool_call_item":
      if (raw.type === "function_call") {
        return [{ side: "assistant", part: { type: "tool-call", toolCallId: raw.callId, toolName: raw.name, input: parseArguments(raw.arguments) } }];
      }
      if (raw.type === "hosted_tool_call") {
        const pd = raw.providerData ?? {};
        // The SDK's own record of an answer it sent to the provider.
        if (raw.name === "mcp_approval_response" || pd.type === "mcp_approval_response") {
          const out = { type: "tool-approval-response", approvalId: pd.approval_request_id, approved: pd.approve === true, providerExecuted: true };
          if (typeof pd.reason === "string") out.reason = pd.reason;
          return [{ side: "tool", part: out }];
        }
        // The provider's approval request, as the SDK records the call it
        // asks about (a tool_approval_item follows it).
        if (raw.name === "mcp_approval_request" || pd.type === "mcp_approval_request") {
          return [{ side: "assistant", part: { type: "tool-call", toolCallId: pd.id ?? raw.id, toolName: pd.name ?? raw.name, input: parseArguments(pd.arguments ?? raw.arguments), providerExecuted: true } }];
        }
        // A call the provider ran (mcp_call): its call and its result.
        const id = pd.approval_request_id ?? pd.id ?? raw.id;
        const parts = [{ side: "assistant", part: { type: "tool-call", toolCallId: id, toolName: raw.name, input: parseArguments(raw.arguments), providerExecuted: true } }];
        if (raw.output !== undefined || pd.error) {
          const failed = pd.error != null;
          parts.push({ side: "assistant", part: { type: "tool-result", toolCallId: id, toolName: raw.name, providerExecuted: true,
            output: { type: "text", value: failed ? (typeof pd.error === "string" ? pd.error : JSON.stringify(pd.error)) : String(raw.output ?? "") } } });
        }
        return parts;
      }
      throw new CanonicalError(`a tool call item of type ${raw.type} has no canonical form`);
    case "tool_call_output_item":
      if (raw.type === "function_call_result") {
        return [{ side: "tool", part: { type: "tool-result", toolCallId: raw.callId, toolName: raw.name, output: { type: "text", value: resultText(raw.output) } } }];
      }
      throw new CanonicalError(`a tool output item of type ${raw.type} has no canonical form`);
    case "tool_approval_item": {
      const approvalId = approvalIdOf(item);
      if (raw.type === "hosted_tool_call") {
        // A provider's approval request: its call has no id of its own on
        // the wire; the approval's id stands for it.
        return [{ side: "assistant", part: { type: "tool-approval-request", approvalId, toolCallId: approvalId } }];
      }
      return [{ side: "assistant", part: { type: "tool-approval-request", approvalId, toolCallId: raw.callId } }];
    }
  }
  throw new CanonicalError(`a run item of type ${item.type} has no canonical form`);
}

/**
 * toCanonicalMessages lays the run items out as canonical messages: the
 * assistant's parts and the tool results in the order the run made them, a
 * new message each time the side changes.
 */
export function toCanonicalMessages(items) {
  const messages = [];
  for (const item of items) {
    for (const { side, part } of itemParts(item)) {
      const last = messages.at(-1);
      if (last?.role === side) last.content.push(part);
      else messages.push({ role: side, content: [part] });
    }
  }
  return messages;
}

const eventTypes = new Set(["tool-call", "tool-approval-request", "tool-result"]);

/**
 * toCanonicalEvents maps the item of one of the SDK's run item stream
 * events to canonical events: its calls, approval requests and results
 * (text comes as text-delta events of the model's stream).
 */
export function toCanonicalEvents(item) {
  return itemParts(item).map(({ part }) => part).filter((p) => eventTypes.has(p.type));
}
