// A model of the application's own (the SDK's Model interface:
// getResponse, getStreamedResponse) that forwards each call of the SDK to
// the kit's canonical model API ({baseURL}/canonical): the input items the
// SDK hands its model, as canonical messages, nothing filtered or added.
//
// The SDK's items are not messages: consecutive items of the assistant (its
// text, reasoning and calls) make one assistant message and consecutive
// results one tool message, the way the SDK's own Chat Completions
// converter groups them. A result is text (the SDK's results carry no
// type). A hosted MCP approval request or answer the SDK sends back is the
// provider-executed approval part it stands for.

import { CanonicalError, ReplyBuilder, callCanonical } from "../../driverkit/index.mjs";

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

function parseArguments(text) {
  if (typeof text !== "string" || text === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function resultText(output) {
  if (typeof output === "string") return output;
  if (isObject(output) && output.type === "text") return output.text;
  if (Array.isArray(output) && output.every((o) => o?.type === "input_text")) return output.map((o) => o.text).join("");
  throw new CanonicalError(`a function_call_result output ${JSON.stringify(output)} has no canonical form`);
}

function userParts(content) {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return content.map((c) => {
    if (c.type === "input_text") return { type: "text", text: c.text };
    if (c.type === "input_image" && typeof c.image === "string") {
      const m = /^data:([^;]+);base64,(.*)$/.exec(c.image);
      return m ? { type: "file", mediaType: m[1], data: m[2] } : { type: "file", mediaType: "image/*", data: c.image };
    }
    throw new CanonicalError(`a user content of type ${c.type} has no canonical form`);
  });
}

// itemPart maps one input item to {role, part} (or {role, content} for a
// whole system or user message).
function itemParts(item, i) {
  if (item.role === "system") return [{ role: "system", whole: typeof item.content === "string" ? item.content : item.content.map((c) => c.text).join("") }];
  if (item.role === "user") return [{ role: "user", parts: userParts(item.content) }];
  if (item.role === "assistant" || item.type === "message") {
    const content = typeof item.content === "string" ? [{ type: "output_text", text: item.content }] : item.content;
    return content.map((c) => {
      if (c.type === "output_text") return { role: "assistant", part: { type: "text", text: c.text } };
      if (c.type === "refusal") return { role: "assistant", part: { type: "text", text: c.refusal } };
      throw new CanonicalError(`input[${i}]: an assistant content of type ${c.type} has no canonical form`);
    });
  }
  switch (item.type) {
    case "reasoning":
      return [{ role: "assistant", part: { type: "reasoning", text: (item.content ?? []).map((c) => c.text).join("") } }];
    case "function_call":
      return [{ role: "assistant", part: { type: "tool-call", toolCallId: item.callId, toolName: item.name, input: parseArguments(item.arguments) } }];
    case "function_call_result":
      return [{ role: "tool", part: { type: "tool-result", toolCallId: item.callId, toolName: item.name, output: { type: "text", value: resultText(item.output) } } }];
    case "hosted_tool_call": {
      const pd = item.providerData ?? {};
      if (pd.type === "mcp_approval_request" || item.name === "mcp_approval_request") {
        const id = pd.id ?? item.id;
        return [
          { role: "assistant", part: { type: "tool-call", toolCallId: id, toolName: pd.name ?? item.name, input: parseArguments(pd.arguments ?? item.arguments), providerExecuted: true } },
          { role: "assistant", part: { type: "tool-approval-request", approvalId: id, toolCallId: id } },
        ];
      }
      if (pd.type === "mcp_approval_response" || item.name === "mcp_approval_response") {
        const out = { type: "tool-approval-response", approvalId: pd.approval_request_id, approved: pd.approve === true, providerExecuted: true };
        if (typeof pd.reason === "string") out.reason = pd.reason;
        return [{ role: "tool", part: out }];
      }
      if (pd.type === "mcp_list_tools") return [];
      const id = pd.approval_request_id ?? pd.id ?? item.id;
      const parts = [{ role: "assistant", part: { type: "tool-call", toolCallId: id, toolName: item.name, input: parseArguments(item.arguments), providerExecuted: true } }];
      if (item.output !== undefined) {
        parts.push({ role: "assistant", part: { type: "tool-result", toolCallId: id, toolName: item.name, providerExecuted: true, output: { type: "text", value: String(item.output) } } });
      }
      return parts;
    }
  }
  throw new CanonicalError(`input[${i}]: an item of type ${item.type ?? item.role} has no canonical form`);
}

/** canonicalMessages maps the SDK's model input to canonical messages. */
export function canonicalMessages(request) {
  const messages = [];
  if (request.systemInstructions) messages.push({ role: "system", content: request.systemInstructions });
  const input = typeof request.input === "string" ? [{ role: "user", content: request.input }] : request.input;
  input.forEach((item, i) => {
    for (const x of itemParts(item, i)) {
      if (x.whole !== undefined) {
        messages.push({ role: x.role, content: x.whole });
      } else if (x.parts) {
        messages.push({ role: x.role, content: x.parts });
      } else {
        const last = messages.at(-1);
        if (last?.role === x.role && Array.isArray(last.content)) last.content.push(x.part);
        else messages.push({ role: x.role, content: [x.part] });
      }
    }
  });
  return messages;
}

function canonicalRequest(request, stream) {
  const body = { messages: canonicalMessages(request), stream };
  const tools = [];
  for (const t of request.tools ?? []) {
    if (t.type === "function") {
      tools.push({ name: t.name, description: t.description, inputSchema: t.parameters });
    } else if (t.type === "hosted_tool" && t.providerData?.type === "mcp") {
      // The SDK's hosted MCP tool names its server, not a tool.
      tools.push({ name: t.providerData.server_label, providerExecuted: true, serverLabel: t.providerData.server_label });
    } else {
      throw new CanonicalError(`a tool of type ${t.type} has no canonical form`);
    }
  }
  if (tools.length > 0) body.tools = tools;
  const tc = request.modelSettings?.toolChoice;
  if (tc) body.options = { toolChoice: ["auto", "none", "required"].includes(tc) ? { type: tc } : { type: "tool", toolName: tc } };
  return body;
}

// outputItems maps a canonical reply's content to the SDK's output items.
function outputItems(content, request) {
  const labels = new Map(); // a hosted tool's server label by its name
  for (const t of request.tools ?? []) {
    if (t.type === "hosted_tool" && t.providerData?.type === "mcp") labels.set(t.providerData.server_label, t.providerData.server_label);
  }
  const items = [];
  const calls = new Map();
  for (const p of content) {
    switch (p.type) {
      case "text": {
        const last = items.at(-1);
        if (last?.type === "message") last.content.push({ type: "output_text", text: p.text });
        else items.push({ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: p.text }] });
        break;
      }
      case "reasoning":
        items.push({ type: "reasoning", content: [{ type: "input_text", text: p.text }] });
        break;
      case "tool-call":
        if (p.providerExecuted) {
          calls.set(p.toolCallId, p);
          break;
        }
        items.push({ type: "function_call", callId: p.toolCallId, name: p.toolName, arguments: JSON.stringify(p.input ?? {}), status: "completed" });
        break;
      case "tool-approval-request": {
        const call = calls.get(p.toolCallId);
        if (!call) throw new CanonicalError(`the canonical reply asks approval for ${p.toolCallId}, which is no provider-executed call of the reply`);
        const label = [...labels.values()][0] ?? call.toolName;
        items.push({
          type: "hosted_tool_call",
          name: "mcp_approval_request",
          arguments: JSON.stringify(call.input ?? {}),
          status: "completed",
          providerData: { type: "mcp_approval_request", id: p.approvalId, server_label: label, name: call.toolName, arguments: JSON.stringify(call.input ?? {}) },
        });
        break;
      }
      case "tool-result": {
        const call = calls.get(p.toolCallId);
        items.push({
          type: "hosted_tool_call",
          name: call?.toolName ?? p.toolName,
          arguments: JSON.stringify(call?.input ?? {}),
          status: "completed",
          output: typeof p.output?.value === "string" ? p.output.value : JSON.stringify(p.output?.value ?? null),
          providerData: { type: "mcp_call", id: p.toolCallId, server_label: [...labels.values()][0] },
        });
        break;
      }
      default:
        throw new CanonicalError(`the canonical reply's part type ${JSON.stringify(p.type)} is not one this model knows`);
    }
  }
  return items;
}

/**
 * canonicalModel returns a Model of the SDK whose calls go to
 * {baseURL}/canonical. An error answer is raised as the openai package's
 * APIError for the status, as the SDK's own OpenAI models raise it.
 */
export function canonicalModel(sdk, baseURL) {
  const usage = (u) => new sdk.Usage({ requests: 1, inputTokens: u?.inputTokens ?? 0, outputTokens: u?.outputTokens ?? 0, totalTokens: (u?.inputTokens ?? 0) + (u?.outputTokens ?? 0) });

  const error = ({ status, body, headers }) => {
    let parsed;
    try {
      parsed = JSON.parse(body);
    } catch {
      parsed = undefined;
    }
    return sdk.OpenAI.APIError.generate(status, parsed, parsed?.error?.message ?? body, headers);
  };
  const call = (request, stream) => callCanonical(baseURL, canonicalRequest(request, stream), { signal: request.signal, error });

  return {
    async getResponse(request) {
      const r = await call(request, false);
      return { usage: usage(r.usage), output: outputItems(r.content, request), responseId: undefined };
    },
    async *getStreamedResponse(request) {
      const events = await call(request, true);
      yield { type: "response_started" };
      const reply = new ReplyBuilder();
      for await (const ev of events) {
        reply.add(ev);
        if (ev.type === "text-delta") yield { type: "output_text_delta", delta: ev.text };
      }
      const uu = usage(reply.usage);
      yield {
        type: "response_done",
        response: {
          id: "ack-canonical",
          usage: { requests: 1, inputTokens: uu.inputTokens, outputTokens: uu.outputTokens, totalTokens: uu.totalTokens },
          output: outputItems(reply.content, request),
        },
      };
    },
  };
}
