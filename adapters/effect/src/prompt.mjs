// Mapping between the kit's canonical model and Effect's Prompt and
// Response parts.
//
// The two models hold the same things under other names: a tool call is
// {toolCallId, toolName, input} in the canonical model and {id, name,
// params} in Effect; a tool result's output type is a failure flag and a
// result in Effect, and Effect's own denial result is a failure whose
// result is {type: "execution-denied", reason}. Provider options are
// `providerOptions` in one and `options` in the other.
//
// Into Effect (a turn's messages) the mapping only renames: every value goes
// to the SDK as the harness sent it, so that a malformed message meets the
// SDK's own Prompt schema, which refuses it or not. Out of Effect (the
// prompt the SDK hands its model, a policy's messages, the messages a turn
// added) a part the canonical model has no place for is an error naming it,
// never dropped in silence.

/** CanonicalError is an SDK value the canonical model cannot hold. */
export class CanonicalError extends Error {}

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

// rename copies obj, renaming the keys of names ({from: to}); other keys
// are kept as they are.
function rename(obj, names) {
  const out = {};
  for (const [k, v] of Object.entries(obj)) out[names[k] ?? k] = v;
  return out;
}

// fromCanonicalOutput is a canonical tool output as Effect's failure flag
// and result. An output of no known type is passed on unmapped (as
// `output`, without the flag the SDK requires), for the SDK to refuse.
function fromCanonicalOutput(output) {
  switch (output?.type) {
    case "json":
    case "text":
      return { isFailure: false, result: output.value };
    case "error-text":
    case "error-json":
      return { isFailure: true, result: output.value };
    case "execution-denied": {
      const result = { type: "execution-denied" };
      if (output.reason !== undefined) result.reason = output.reason;
      return { isFailure: true, result };
    }
  }
  return { output };
}

function fromCanonicalPart(p) {
  if (!isObject(p)) return p;
  const names = { providerOptions: "options" };
  switch (p.type) {
    case "tool-call":
      return rename(p, { ...names, toolCallId: "id", toolName: "name", input: "params" });
    case "tool-result": {
      const { output, ...rest } = p;
      return { ...rename(rest, { ...names, toolCallId: "id", toolName: "name" }), ...fromCanonicalOutput(output) };
    }
    case "file":
      return rename(p, { ...names, filename: "fileName" });
  }
  return rename(p, names);
}

/**
 * toEffectMessages renames the canonical messages into Effect's encoded
 * Prompt messages. Nothing is checked here: the SDK's Prompt.make decodes
 * them with its own schema.
 */
export function toEffectMessages(messages) {
  if (!Array.isArray(messages)) return messages;
  return messages.map((m) => {
    if (!isObject(m)) return m;
    const out = rename(m, { providerOptions: "options" });
    if (Array.isArray(m.content)) out.content = m.content.map(fromCanonicalPart);
    return out;
  });
}

/**
 * toCanonicalOutput is an Effect result as a canonical output: Effect's
 * denial result is execution-denied (with its reason); another failure is
 * error-text (a string) or error-json; a success is text (a string) or
 * json.
 */
export function toCanonicalOutput(isFailure, result) {
  if (isFailure) {
    if (isObject(result) && result.type === "execution-denied") {
      const out = { type: "execution-denied" };
      if (typeof result.reason === "string") out.reason = result.reason;
      return out;
    }
    return typeof result === "string" ? { type: "error-text", value: result } : { type: "error-json", value: result ?? null };
  }
  return typeof result === "string" ? { type: "text", value: result } : { type: "json", value: result ?? null };
}

function providerOptions(from, to) {
  if (isObject(from.options) && Object.keys(from.options).length > 0) to.providerOptions = from.options;
  return to;
}

function fileData(data) {
  if (typeof data === "string") return data;
  if (data instanceof URL) return data.href;
  if (data instanceof Uint8Array) return Buffer.from(data).toString("base64");
  throw new CanonicalError("a file part's data is neither a string, a URL nor bytes");
}

/** toCanonicalPart maps one part of an Effect Prompt message. */
export function toCanonicalPart(p, where) {
  switch (p.type) {
    case "text":
    case "reasoning":
      return providerOptions(p, { type: p.type, text: p.text });
    case "file": {
      const out = { type: "file", mediaType: p.mediaType, data: fileData(p.data) };
      if (p.fileName !== undefined) out.filename = p.fileName;
      return providerOptions(p, out);
    }
    case "tool-call": {
      const out = { type: "tool-call", toolCallId: p.id, toolName: p.name, input: p.params === undefined ? null : p.params };
      if (p.providerExecuted) out.providerExecuted = true;
      return providerOptions(p, out);
    }
    case "tool-result": {
      if (p.modelOutput !== undefined) {
        throw new CanonicalError(`${where}.modelOutput: a result shown to the model as other content has no canonical form`);
      }
      const out = { type: "tool-result", toolCallId: p.id, toolName: p.name, output: toCanonicalOutput(p.isFailure, p.result) };
      if (p.providerExecuted) out.providerExecuted = true;
      return providerOptions(p, out);
    }
    case "tool-approval-request":
      return providerOptions(p, { type: "tool-approval-request", approvalId: p.approvalId, toolCallId: p.toolCallId });
    case "tool-approval-response": {
      const out = { type: "tool-approval-response", approvalId: p.approvalId, approved: p.approved };
      if (p.reason !== undefined) out.reason = p.reason;
      return providerOptions(p, out);
    }
  }
  throw new CanonicalError(`${where}.type: the SDK's part type ${JSON.stringify(p.type)} has no canonical form`);
}

/**
 * toCanonicalMessages maps Effect Prompt messages (a prompt's content, the
 * messages of Prompt.fromResponseParts) to canonical messages.
 */
export function toCanonicalMessages(messages, prefix = "messages") {
  return messages.map((m, i) => {
    const where = `${prefix}[${i}]`;
    const out = { role: m.role };
    out.content = typeof m.content === "string" ? m.content : m.content.map((p, j) => toCanonicalPart(p, `${where}.content[${j}]`));
    return providerOptions(m, out);
  });
}

/**
 * toCanonicalEvent maps one of the SDK's stream parts to a canonical stream
 * event, or undefined for a part with no event (text blocks open and close,
 * tool input streams, response metadata, preliminary results).
 */
export function toCanonicalEvent(p) {
  switch (p.type) {
    case "text-delta":
      return { type: "text-delta", text: p.delta };
    case "tool-call":
      return toCanonicalPart({ type: "tool-call", id: p.id, name: p.name, params: p.params, providerExecuted: p.providerExecuted }, "stream");
    case "tool-approval-request":
      return { type: "tool-approval-request", approvalId: p.approvalId, toolCallId: p.toolCallId };
    case "tool-result":
      if (p.preliminary) return undefined;
      return toCanonicalPart({ type: "tool-result", id: p.id, name: p.name, isFailure: p.isFailure, result: p.encodedResult, providerExecuted: p.providerExecuted }, "stream");
    case "finish":
      return { type: "finish", finishReason: p.reason };
    case "error":
      return { type: "error", message: p.error instanceof Error ? p.error.message : JSON.stringify(p.error) };
  }
  return undefined;
}
