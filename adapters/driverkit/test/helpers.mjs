// Helpers of the kit's tests: a loopback server whose handler the test
// writes, and JSON requests to it.

import { createServer } from "node:http";

/** listen serves handler on 127.0.0.1 and resolves to {url, close}. */
export function listen(handler) {
  const server = createServer(handler);
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () => new Promise((done) => {
          server.close(() => done());
          server.closeAllConnections();
        }),
      });
    });
  });
}

/** request sends method to url with an optional JSON body; resolves to {status, body} (body parsed when JSON). */
export async function request(method, url, body, headers = {}) {
  const init = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === "string" ? body : JSON.stringify(body);
    init.headers["content-type"] = "application/json";
  }
  const res = await fetch(url, init);
  const text = await res.text();
  let parsed = text;
  if ((res.headers.get("content-type") ?? "").includes("json")) parsed = JSON.parse(text);
  return { status: res.status, body: parsed, headers: res.headers };
}

/** readAll reads a node request's body as text. */
export async function readAll(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  return Buffer.concat(chunks).toString("utf8");
}
