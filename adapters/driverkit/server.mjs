// The server role (docs/driver-protocol.md, Server role): the harness
// opens a chat endpoint of the SDK (its chat route, with its agent behind
// it) and plays a conforming chat client against it. The kit serves the
// endpoints, checks the chat request, bounds the chats, and serves each
// chat's route at a URL of the adapter itself; the adapter builds the
// route the way the SDK's docs build one:
//
//   open({protocol, dialect, model, tools, options, conversation}) -> a chat with
//     handle(request)  -> a Response (the fetch API's Request and Response,
//                         which SDKs' chat routes take and give: the AI SDK's
//                         toUIMessageStreamResponse(), TanStack AI's
//                         toServerSentEventsResponse())
//     close()          -> ends the chat (optional)

import { randomUUID } from "node:crypto";

import { HTTPError, MAX_BODY, readBody, readJSON, sendJSON } from "./http.mjs";
import { checkChat } from "./protocol.mjs";
import { speaks } from "./client.mjs";

/**
 * toRequest is a node request as the fetch API's Request, its body read
 * whole (at most max bytes).
 */
export async function toRequest(req, url, { max = MAX_BODY } = {}) {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (Array.isArray(v)) for (const x of v) headers.append(k, x);
    else if (v !== undefined) headers.set(k, v);
  }
  const init = { method: req.method, headers };
  if (req.method !== "GET" && req.method !== "HEAD") init.body = await readBody(req, { max });
  return new Request(url, init);
}

/**
 * sendResponse writes a fetch API Response to a node response, streaming
 * its body as it comes; a client that goes away cancels the body.
 */
export async function sendResponse(res, response) {
  const headers = {};
  response.headers.forEach((v, k) => {
    headers[k] = v;
  });
  res.writeHead(response.status, headers);
  if (!response.body) return res.end();
  const reader = response.body.getReader();
  const gone = () => reader.cancel().catch(() => {});
  res.on("close", gone);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await new Promise((resolve) => res.once("drain", resolve));
    }
  } finally {
    res.off("close", gone);
  }
  res.end();
}

/** ServerRole serves /v1/server/chats for an adapter's chat route. */
export class ServerRole {
  /**
   * protocols: the protocols the chat route speaks, each with its dialect
   * (undefined: the default), as info declares them (serverProtocols,
   * serverDialects); open: makes a chat; maxChats: chats open at once (429
   * TooManySessions beyond).
   */
  constructor({ protocols, open, maxChats = 256 }) {
    this.protocols = protocols;
    this.open = open;
    this.maxChats = maxChats;
    this.chats = new Map();
  }

  /**
   * route serves one request; rest is the path after /v1/server/chats and
   * base the adapter's own URL (the chats' URLs are under it).
   */
  async route(req, res, rest, base) {
    if (rest === "" || rest === "/") {
      if (req.method !== "POST") throw new HTTPError(404, "NotFound", `${req.method} /v1/server/chats: no such endpoint`);
      const body = await readJSON(req);
      checkChat(body);
      const dialect = speaks(this.protocols, body.protocol, body.dialect, "chat endpoint");
      if (this.chats.size >= this.maxChats) throw new HTTPError(429, "TooManySessions", `${this.chats.size} chats are open, the most this adapter holds`);
      const chat = await this.open({ ...body, dialect, tools: body.tools ?? [], options: body.options ?? {} });
      const id = randomUUID();
      this.chats.set(id, chat);
      return sendJSON(res, 200, { chatId: id, chatURL: `${base}/v1/server/chats/${id}/chat` });
    }
    const m = /^\/([^/]+)(\/chat)?$/.exec(rest);
    if (!m) throw new HTTPError(404, "NotFound", `no chat endpoint ${rest}`);
    const [, id, route] = m;
    const chat = this.chats.get(id);
    if (!chat) throw new HTTPError(404, "NotFound", `no chat ${id}`);
    if (!route && req.method === "DELETE") {
      this.chats.delete(id);
      await chat.close?.();
      res.writeHead(204);
      return res.end();
    }
    if (!route) throw new HTTPError(404, "NotFound", `${req.method} ${rest}: no such chat endpoint`);
    const request = await toRequest(req, `${base}/v1/server/chats/${id}/chat`);
    return sendResponse(res, await chat.handle(request));
  }

  /** close ends every chat (the adapter is shutting down). */
  async close() {
    for (const [id, chat] of this.chats) {
      this.chats.delete(id);
      await chat.close?.();
    }
  }
}
