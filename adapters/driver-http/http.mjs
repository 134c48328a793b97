// The driver protocol's HTTP plumbing, shared by the Effect, Mastra and
// OpenAI Agents adapters (Node built-ins only): bounded JSON bodies, the
// error envelope, and the callbacks the tools and policies make.

/** MAX_BODY bounds every request body the adapter reads (16 MiB). */
export const MAX_BODY = 16 << 20;

/** HTTPError is a driver protocol error answer. */
export class HTTPError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export const badRequest = (msg) => new HTTPError(400, "BadRequest", msg);

/** readJSON reads a request body of at most MAX_BODY bytes as JSON. */
export async function readJSON(req) {
  const chunks = [];
  let size = 0;
  for await (const c of req) {
    size += c.length;
    if (size > MAX_BODY) throw new HTTPError(413, "BadRequest", `body: larger than ${MAX_BODY} bytes`);
    chunks.push(c);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch (e) {
    throw badRequest(`body: not JSON: ${e.message}`);
  }
}

/** onlyFields refuses fields the protocol does not define, naming the first. */
export function onlyFields(obj, where, allowed) {
  if (obj === null || typeof obj !== "object" || Array.isArray(obj)) throw badRequest(`${where}: not an object`);
  for (const k of Object.keys(obj)) {
    if (!allowed.includes(k)) throw badRequest(`${where}.${k}: unknown field`);
  }
}

export function sendJSON(res, status, body) {
  const b = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(b) });
  res.end(b);
}

export function sendError(res, e) {
  if (e instanceof HTTPError) {
    sendJSON(res, e.status, { error: { code: e.code, message: e.message } });
  } else {
    sendJSON(res, 500, { error: { code: "Internal", message: e instanceof Error ? `${e.name}: ${e.message}` : String(e) } });
  }
}

/**
 * postJSON posts a callback (a tool run, a policy) to the harness and
 * returns its JSON answer. A non-2xx answer is an error naming the status.
 */
export async function postJSON(url, body, signal) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    signal,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`callback ${url}: HTTP ${res.status}: ${text}`);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error(`callback ${url}: answer is not JSON: ${e.message}`);
  }
}

/** sseEvents yields the JSON data of each server-sent event of a body ("[DONE]" ends it). */
export async function* sseEvents(body) {
  const decoder = new TextDecoder();
  let buf = "";
  const take = function* (final) {
    let at;
    while ((at = buf.search(/\r?\n\r?\n/)) >= 0 || (final && buf.trim() !== "")) {
      const event = at >= 0 ? buf.slice(0, at) : buf;
      buf = at >= 0 ? buf.slice(at).replace(/^\r?\n\r?\n/, "") : "";
      const data = event.split(/\r?\n/).filter((l) => l.startsWith("data:")).map((l) => l.slice(5).replace(/^ /, "")).join("\n");
      if (data === "[DONE]") return true;
      if (data !== "") yield JSON.parse(data);
    }
    return false;
  };
  for await (const chunk of body) {
    buf += decoder.decode(chunk, { stream: true });
    if (yield* take(false)) return;
  }
  buf += decoder.decode();
  yield* take(true);
}

// checkTurn validates a turn request of driver protocol v1 (POST
// /v1/agent/turn) before an adapter gives it to its SDK: only the known
// fields, a mode, a model, a toolkit, and well-formed tools; a bad one is a
// 400 naming the field.
const turnFields = ["mode", "model", "tools", "toolkit", "options", "messages", "conversation", "state"];
const toolFields = ["name", "description", "inputSchema", "approval", "policyURL", "executeURL", "providerExecuted", "serverLabel"];

export function checkTurn(body) {
  onlyFields(body, "body", turnFields);
  if (!["generate", "stream"].includes(body.mode)) throw badRequest(`mode: want generate or stream, got ${JSON.stringify(body.mode)}`);
  onlyFields(body.model, "model", ["baseURL", "api"]);
  if (typeof body.model.baseURL !== "string") throw badRequest("model.baseURL: missing");
  if (!["provided", "absent", "empty"].includes(body.toolkit)) throw badRequest(`toolkit: want provided, absent or empty, got ${JSON.stringify(body.toolkit)}`);
  onlyFields(body.options ?? {}, "options", ["concurrency", "maxSteps", "denialPolicy"]);
  const names = new Set();
  (body.tools ?? []).forEach((t, i) => {
    onlyFields(t, `tools[${i}]`, toolFields);
    if (typeof t.name !== "string" || t.name === "") throw badRequest(`tools[${i}].name: missing`);
    if (names.has(t.name)) throw badRequest(`tools[${i}].name: ${t.name} is named twice`);
    names.add(t.name);
    if (!["always", "never", "dynamic"].includes(t.approval)) throw badRequest(`tools[${i}].approval: want always, never or dynamic`);
    if (t.approval === "dynamic" && !t.policyURL) throw badRequest(`tools[${i}].policyURL: missing for a dynamic tool`);
  });
}
