// The example SDK's reading of a conversation: it checks the messages it
// is given, indexes the calls, results and approvals in them, and builds
// the prompt its model gets. Its messages are the kit's canonical model
// (the AI SDK's ModelMessage shape), so the adapter passes them as they
// are; a real SDK has messages of its own, which the adapter converts.

import { AgentError } from "./errors.mjs";

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

// The parts each role may hold, and each part's fields: [required, optional].
const PARTS = {
  text: [{ text: "string" }, {}],
  reasoning: [{ text: "string" }, {}],
  file: [{ mediaType: "string", data: "string" }, { filename: "string" }],
  "tool-call": [{ toolCallId: "id", toolName: "id", input: "any" }, { providerExecuted: "boolean" }],
  "tool-result": [{ toolCallId: "id", toolName: "id", output: "output" }, { providerExecuted: "boolean" }],
  "tool-approval-request": [{ approvalId: "id", toolCallId: "id" }, { signature: "string", reason: "string", isAutomatic: "boolean" }],
  "tool-approval-response": [{ approvalId: "id", approved: "boolean" }, { reason: "string", editedInput: "any", providerExecuted: "boolean" }],
};
const ROLES = {
  system: [],
  user: ["text", "file"],
  assistant: ["text", "reasoning", "file", "tool-call", "tool-approval-request", "tool-result"],
  tool: ["tool-result", "tool-approval-response"],
};
const OUTPUTS = { json: [{ value: "any" }, {}], text: [{ value: "string" }, {}], "error-json": [{ value: "any" }, {}], "error-text": [{ value: "string" }, {}], "execution-denied": [{}, { reason: "string" }] };

const invalid = (where, what) => new AgentError("invalid-messages", `${where}: ${what}`);

function checkFields(obj, where, [required, optional]) {
  for (const [k, kind] of Object.entries(required)) if (!(k in obj)) throw invalid(`${where}.${k}`, "missing field");
  for (const [k, v] of Object.entries(obj)) {
    if (k === "type" || k === "providerOptions") continue;
    const kind = required[k] ?? optional[k];
    if (!kind) throw invalid(`${where}.${k}`, "unknown field");
    if (kind === "id" && (typeof v !== "string" || v === "")) throw invalid(`${where}.${k}`, `want a non-empty string, got ${JSON.stringify(v)}`);
    if ((kind === "string" || kind === "boolean") && typeof v !== kind) throw invalid(`${where}.${k}`, `want a ${kind}, got ${JSON.stringify(v)}`);
    if (kind === "output") {
      if (!isObject(v) || !OUTPUTS[v.type]) throw invalid(`${where}.${k}`, `want a tool output (json, text, error-json, error-text, execution-denied), got ${JSON.stringify(v)}`);
      checkFields(v, `${where}.${k}`, OUTPUTS[v.type]);
    }
  }
}

/**
 * checkMessages refuses a conversation the SDK cannot read: a message or
 * part it does not know, a field of the wrong type, a missing id. The
 * error names the message, the part and the field.
 */
export function checkMessages(messages) {
  if (!Array.isArray(messages)) throw invalid("messages", "not a list");
  messages.forEach((m, i) => {
    const where = `messages[${i}]`;
    if (!isObject(m) || !ROLES[m.role]) throw invalid(`${where}.role`, `want system, user, assistant or tool, got ${JSON.stringify(m?.role)}`);
    for (const k of Object.keys(m)) if (!["role", "content", "id", "providerOptions"].includes(k)) throw invalid(`${where}.${k}`, "unknown field");
    if (typeof m.content === "string" && m.role !== "tool") return;
    if (m.role === "system") throw invalid(`${where}.content`, "a system message's content is a string");
    if (!Array.isArray(m.content)) throw invalid(`${where}.content`, "want a list of parts");
    m.content.forEach((p, j) => {
      const at = `${where}.content[${j}]`;
      if (!isObject(p) || !PARTS[p.type]) throw invalid(`${at}.type`, `unknown part type ${JSON.stringify(p?.type)}`);
      if (!ROLES[m.role].includes(p.type)) throw invalid(`${at}.type`, `a ${m.role} message holds no ${p.type} part`);
      checkFields(p, at, PARTS[p.type]);
    });
  });
}

/** partsOf is a message's parts (a string content is one text part). */
export const partsOf = (m) => (typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content);

/**
 * indexOf finds, in a conversation, each call (its first place), the
 * results of each call, each approval request, and every approval
 * response in order: {calls, callOrder, results, requests, responses};
 * a place is {message, part}.
 */
export function indexOf(messages) {
  const ix = { calls: new Map(), callOrder: [], results: new Map(), requests: new Map(), responses: [] };
  messages.forEach((m, i) => {
    if (typeof m.content === "string") return;
    m.content.forEach((p) => {
      const at = { message: i, part: p };
      if (p.type === "tool-call" && !ix.calls.has(p.toolCallId)) {
        ix.calls.set(p.toolCallId, at);
        ix.callOrder.push(p.toolCallId);
      } else if (p.type === "tool-result") {
        ix.results.set(p.toolCallId, [...(ix.results.get(p.toolCallId) ?? []), at]);
      } else if (p.type === "tool-approval-request" && !ix.requests.has(p.approvalId)) {
        ix.requests.set(p.approvalId, at);
      } else if (p.type === "tool-approval-response") {
        ix.responses.push(at);
      }
    });
  });
  return ix;
}

/**
 * promptOf is what the model gets: approval parts left out, every call's
 * first result right after the message that holds the call (wherever it
 * sat in the history), results of unknown calls and second results left
 * out, and no empty message.
 */
export function promptOf(messages) {
  const ix = indexOf(messages);
  const out = [];
  const placed = new Set();
  for (const m of messages) {
    if (m.role === "system" || m.role === "user") {
      out.push(structuredClone(m));
    } else if (m.role === "assistant") {
      const content = partsOf(m).filter((p) => p.type !== "tool-approval-request").map((p) => structuredClone(p));
      if (content.length > 0) out.push({ role: "assistant", content });
      const results = [];
      for (const p of content) {
        if (p.type !== "tool-call" || p.providerExecuted || placed.has(p.toolCallId)) continue;
        const first = ix.results.get(p.toolCallId)?.[0];
        if (!first) continue;
        placed.add(p.toolCallId);
        results.push(structuredClone(first.part));
      }
      if (results.length > 0) out.push({ role: "tool", content: results });
    }
    // A tool message's results were placed after their calls; its answers
    // are the SDK's, not the model's.
  }
  return out;
}

/**
 * checkInput checks a call's input against its tool's input schema, as far
 * as this example goes (an object, its required properties, the types of
 * its properties); a real SDK validates with its schema library. It
 * returns what is wrong, or "" when nothing is.
 */
export function checkInput(schema, input) {
  if (!schema) return "";
  const typeOk = (type, v) =>
    type === undefined ||
    (type === "object" ? isObject(v) : type === "array" ? Array.isArray(v) : type === "integer" ? Number.isInteger(v) : type === "null" ? v === null : typeof v === type);
  if (!typeOk(schema.type, input)) return `want ${schema.type}, got ${JSON.stringify(input)}`;
  if (!isObject(input)) return "";
  for (const k of schema.required ?? []) if (!(k in input)) return `missing property ${JSON.stringify(k)}`;
  for (const [k, p] of Object.entries(schema.properties ?? {})) {
    if (k in input && !typeOk(p?.type, input[k])) return `property ${JSON.stringify(k)}: want ${p.type}, got ${JSON.stringify(input[k])}`;
  }
  return "";
}
