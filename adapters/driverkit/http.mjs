// The HTTP plumbing of driver protocol v1: bounded JSON bodies, the
// protocol's error envelope, JSON answers, the callbacks an adapter makes
// to the harness, and a reader of server-sent events. Node built-ins only.

/** MAX_BODY bounds every request body an adapter reads (16 MiB, as the kit's own servers). */
export const MAX_BODY = 16 << 20;

/**
 * HTTPError is a request the adapter refuses: an HTTP status and the
 * protocol's error envelope {error: {code, message}}. The codes are the
 * protocol's: BadRequest (naming the field), TooLarge, NotFound,
 * NotImplemented (a role the adapter does not play), TooManySessions,
 * Internal.
 */
export class HTTPError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** badRequest is a 400 BadRequest whose message names the field. */
export const badRequest = (msg) => new HTTPError(400, "BadRequest", msg);

/**
 * readBody reads a request body of at most max bytes (MAX_BODY). A
 * Content-Length over the bound is refused before a byte is read; a body
 * that grows past it is refused as it arrives (413 TooLarge).
 */
export async function readBody(req, { max = MAX_BODY } = {}) {
  const declared = Number(req.headers?.["content-length"]);
  if (Number.isFinite(declared) && declared > max) throw new HTTPError(413, "TooLarge", `body: ${declared} bytes, larger than ${max}`);
  const chunks = [];
  let size = 0;
  for await (const c of req) {
    size += c.length;
    if (size > max) throw new HTTPError(413, "TooLarge", `body: larger than ${max} bytes`);
    chunks.push(c);
  }
  return Buffer.concat(chunks);
}

/** readJSON reads a request body as readBody does, as JSON; one that is not JSON is a 400 naming why. */
export async function readJSON(req, { max = MAX_BODY } = {}) {
  const body = await readBody(req, { max });
  try {
    return JSON.parse(body.toString("utf8"));
  } catch (e) {
    throw badRequest(`body: not JSON: ${e.message}`);
  }
}

/**
 * onlyFields refuses fields outside allowed, naming the first. The
 * protocol has an adapter ignore unknown fields in what the harness sends
 * (a newer harness adds fields): use it for what an adapter answers or
 * reads from its own side, not for harness requests (see protocol.mjs).
 */
export function onlyFields(obj, where, allowed) {
  if (obj === null || typeof obj !== "object" || Array.isArray(obj)) throw badRequest(`${where}: not an object`);
  for (const k of Object.keys(obj)) {
    if (!allowed.includes(k)) throw badRequest(`${where}.${k}: unknown field`);
  }
}

/** sendJSON answers a JSON body with its length. */
export function sendJSON(res, status, body) {
  const b = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(b) });
  res.end(b);
}

/** sendError answers the error envelope: an HTTPError's status and code, or 500 Internal. */
export function sendError(res, e) {
  if (e instanceof HTTPError) {
    sendJSON(res, e.status, { error: { code: e.code, message: e.message } });
  } else {
    sendJSON(res, 500, { error: { code: "Internal", message: e instanceof Error ? `${e.name}: ${e.message}` : String(e) } });
  }
}

/**
 * postJSON posts a callback (a tool run, a policy) to the harness and
 * returns its JSON answer. A non-2xx answer is an error naming the status
 * and body; an answer that is not JSON, an error saying so.
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

/**
 * sseEvents yields the JSON data of each server-sent event of a body (a
 * fetch Response's body, or any async iterable of bytes); "[DONE]" ends it.
 * Events without data (comments, keep-alives) are skipped.
 */
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
