// Canonical messages to LangChain messages and back.
//
// LangChain's messages (@langchain/core/messages) have no approval parts:
// an approval is an interrupt of the run, held by the checkpointer, and an
// answer is a decision sent with Command({resume}). So the approval parts
// of the canonical model never become LangChain messages; the agent role
// (agent.mjs) maps them onto the interrupt and its decisions. A tool result
// is a ToolMessage whose content is text and whose status is "success" or
// "error": it carries no output type (the adapter declares untypedResults).

import { NotExpressible } from "../../driverkit/index.mjs";

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/** outputText is a canonical tool output as the text of a ToolMessage. */
export function outputText(output) {
  switch (output?.type) {
    case "text":
    case "error-text":
      return String(output.value);
    case "json":
    case "error-json":
      return typeof output.value === "string" ? output.value : JSON.stringify(output.value);
    case "execution-denied":
      return output.reason ?? "Tool execution was denied.";
  }
  throw new NotExpressible(`a tool output of type ${output?.type} has no form in a ToolMessage`);
}

const failed = (output) => ["error-text", "error-json", "execution-denied"].includes(output?.type);

function userContent(content, where) {
  if (typeof content === "string") return content;
  const texts = content.map((p, j) => {
    if (p.type !== "text") throw new NotExpressible(`${where}.content[${j}]: a ${p.type} part: the adapter gives the agent text only`);
    return p.text;
  });
  return texts.join("");
}

/**
 * toLangChain maps canonical messages (a conversation without approvals)
 * to LangChain messages. An approval request whose call has a result is
 * history (the call was answered and ran or was refused) and is left out;
 * any other approval part has no form in a message.
 */
export function toLangChain(sdk, messages, start = 0) {
  const results = new Set();
  for (const m of messages) {
    if (m?.role === "tool" && Array.isArray(m.content)) for (const p of m.content) if (p.type === "tool-result") results.add(p.toolCallId);
  }
  const out = [];
  messages.forEach((m, k) => {
    const i = k + start;
    const where = `messages[${i}]`;
    switch (m.role) {
      case "system":
        out.push(new sdk.SystemMessage(typeof m.content === "string" ? m.content : userContent(m.content, where)));
        return;
      case "user":
        out.push(new sdk.HumanMessage(userContent(m.content, where)));
        return;
      case "assistant": {
        const content = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
        let text = "";
        const calls = [];
        content.forEach((p, j) => {
          switch (p.type) {
            case "text":
              text += p.text;
              return;
            case "tool-call":
              if (p.providerExecuted) throw new NotExpressible(`${where}.content[${j}]: a provider-executed call: LangChain's agent has no provider-run tools`);
              calls.push({ type: "tool_call", id: p.toolCallId, name: p.toolName, args: isObject(p.input) ? p.input : { input: p.input } });
              return;
            case "tool-approval-request":
              if (results.has(p.toolCallId)) return;
              throw new NotExpressible(`${where}.content[${j}]: an approval request with no run to resume: LangChain holds a pending approval as an interrupt in its checkpointer, not in a message`);
            default:
              throw new NotExpressible(`${where}.content[${j}]: a ${p.type} part has no form in an AIMessage of the adapter`);
          }
        });
        out.push(new sdk.AIMessage({ content: text, tool_calls: calls }));
        return;
      }
      case "tool":
        m.content.forEach((p, j) => {
          if (p.type === "tool-approval-response") {
            throw new NotExpressible(`${where}.content[${j}]: an approval answer with no interrupted run to resume: LangChain's answer is a decision of Command({resume}) to an interrupt`);
          }
          out.push(new sdk.ToolMessage({ content: outputText(p.output), tool_call_id: p.toolCallId, name: p.toolName, status: failed(p.output) ? "error" : "success" }));
        });
        return;
    }
    throw new NotExpressible(`${where}.role: ${m.role} has no LangChain message`);
  });
  return out;
}

/** textOf is a LangChain message content as text. */
export function textOf(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((c) => (typeof c === "string" ? c : c?.type === "text" ? c.text : "")).join("");
}

function typeOf(m) {
  return typeof m?._getType === "function" ? m._getType() : m?.type;
}

/**
 * toCanonical maps LangChain messages to canonical messages: an AIMessage
 * is an assistant message (its text, then its tool calls), consecutive
 * ToolMessages one tool message. A ToolMessage is text; its status "error"
 * (a failed tool, or a rejection of the middleware) is error-text.
 */
export function toCanonical(lcMessages) {
  const out = [];
  for (const m of lcMessages) {
    const t = typeOf(m);
    if (t === "ai") {
      const content = [];
      const text = textOf(m.content);
      if (text !== "") content.push({ type: "text", text });
      for (const c of m.tool_calls ?? []) content.push({ type: "tool-call", toolCallId: c.id, toolName: c.name, input: c.args ?? {} });
      out.push({ role: "assistant", content });
    } else if (t === "tool") {
      const part = { type: "tool-result", toolCallId: m.tool_call_id, toolName: m.name ?? "", output: { type: m.status === "error" ? "error-text" : "text", value: textOf(m.content) } };
      const last = out.at(-1);
      if (last?.role === "tool") last.content.push(part);
      else out.push({ role: "tool", content: [part] });
    } else if (t === "human") {
      out.push({ role: "user", content: [{ type: "text", text: textOf(m.content) }] });
    } else if (t === "system") {
      out.push({ role: "system", content: textOf(m.content) });
    }
  }
  return out;
}
