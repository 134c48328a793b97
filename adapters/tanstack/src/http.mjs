// The driver protocol's HTTP plumbing: bounded JSON bodies that refuse
// unknown fields, the error envelope, and a small router.
import http from 'node:http'

/** MAX_BODY bounds a request body, as the protocol says (16 MiB). */
export const MAX_BODY = 16 << 20

/** ProtocolError is a request the adapter refuses with an error envelope. */
export class ProtocolError extends Error {
  constructor(status, code, message) {
    super(message)
    this.status = status
    this.code = code
  }
}

export const badRequest = (message) => new ProtocolError(400, 'BadRequest', message)

/** readJSON reads a bounded JSON object body. */
export async function readJSON(req) {
  const chunks = []
  let size = 0
  for await (const chunk of req) {
    size += chunk.length
    if (size > MAX_BODY) {
      throw new ProtocolError(413, 'BadRequest', `the body is over ${MAX_BODY} bytes`)
    }
    chunks.push(chunk)
  }
  const text = Buffer.concat(chunks).toString('utf8')
  let body
  try {
    body = JSON.parse(text)
  } catch (err) {
    throw badRequest(`the body is not JSON: ${err.message}`)
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest('the body must be a JSON object')
  }
  return body
}

/**
 * fields checks an object's fields: every required one present, none
 * unknown. where names the object in errors ("body", "tools[2]").
 */
export function fields(obj, where, required, optional = []) {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
    throw badRequest(`${where}: want an object`)
  }
  for (const k of required) {
    if (!(k in obj)) throw badRequest(`${where}.${k}: missing`)
  }
  for (const k of Object.keys(obj)) {
    if (!required.includes(k) && !optional.includes(k)) {
      throw badRequest(`${where}.${k}: unknown field`)
    }
  }
  return obj
}

export function sendJSON(res, status, value) {
  const body = JSON.stringify(value)
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) })
  res.end(body)
}

export function sendError(res, status, code, message) {
  sendJSON(res, status, { error: { code, message } })
}

/**
 * serve starts the HTTP server on host (127.0.0.1 by default) and a free
 * port. route(method, path) returns a handler (req, res, match) or null.
 */
export function serve(route, { host = '127.0.0.1', port = 0 } = {}) {
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://adapter')
    const found = route(req.method, url.pathname)
    if (!found) {
      sendError(res, 404, 'NotFound', `no endpoint ${req.method} ${url.pathname}`)
      return
    }
    try {
      await found.handler(req, res, found.match)
    } catch (err) {
      if (res.headersSent) {
        res.destroy(err)
        return
      }
      if (err instanceof ProtocolError) {
        sendError(res, err.status, err.code, err.message)
        return
      }
      sendError(res, 500, 'Internal', `${err?.name ?? 'Error'}: ${err?.message ?? err}`)
    }
  })
  server.requestTimeout = 0 // long polls and turns are bounded by the harness
  server.headersTimeout = 10_000
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => resolve(server))
  })
}
