#!/usr/bin/env node
// The TanStack AI adapter: driver protocol v1 for one installed release
// line of TanStack AI (a folder of versions/ with its node_modules).
//
//   node server.mjs versions/ai-client-0.33.2 [--model-api wire|canonical]
//                   [--host 127.0.0.1] [--port 0]
//
// Prints the driver URL on the first line of stdout.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { AgentRole } from './src/agent.mjs'
import { ClientRole } from './src/client.mjs'
import { badRequest, fields, readJSON, sendJSON, serve } from './src/http.mjs'
import { clientProtocol, load } from './src/sdk.mjs'

const ADAPTER_VERSION = '0.1.0'

// The @tanstack/ai releases whose chat server drops a tool call still
// waiting for its approval from the prompt (main, below, cites the lines).
const SUPERSEDES_PENDING = new Set(['0.42.0'])

function parseArgs(argv) {
  const opts = { host: '127.0.0.1', port: 0, modelAPI: 'wire' }
  const rest = []
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--host') opts.host = argv[++i]
    else if (a === '--port') opts.port = Number(argv[++i])
    else if (a === '--model-api') opts.modelAPI = argv[++i]
    else if (a.startsWith('-')) throw new Error(`unknown flag ${a}`)
    else rest.push(a)
  }
  if (rest.length !== 1) throw new Error('usage: node server.mjs <versions/line folder> [--model-api wire|canonical] [--host H] [--port P]')
  if (opts.modelAPI !== 'wire' && opts.modelAPI !== 'canonical') throw new Error(`--model-api ${opts.modelAPI}: want wire or canonical`)
  // A folder relative to the working directory, or to this adapter.
  const here = path.dirname(fileURLToPath(import.meta.url))
  opts.dir = path.resolve(rest[0])
  if (!fs.existsSync(opts.dir)) opts.dir = path.resolve(here, rest[0])
  return opts
}

async function main() {
  const opts = parseArgs(process.argv.slice(2))
  const sdk = await load(opts.dir)
  const roles = []
  const features = { modes: [] }
  let client
  if (sdk.client && sdk.ai) {
    const spoken = clientProtocol(sdk.versions.client)
    if (spoken) {
      client = new ClientRole(sdk, spoken)
      roles.push('client')
      features.clientProtocols = [spoken.protocol]
      features.clientDialects = { [spoken.protocol]: spoken.dialect }
      features.clientTools = true
      // TanStack has no denied state: a denied call stays approval-responded.
      features.clientStates = ['awaiting-input', 'input-streaming', 'input-complete', 'approval-requested', 'approval-responded', 'output-available', 'output-error']
    } else {
      process.stderr.write(`@tanstack/ai-client ${sdk.versions.client}: the kit speaks no dialect of this release; no client role\n`)
    }
  }
  let agent
  if (sdk.ai && sdk.openai) {
    const a = new AgentRole(sdk, opts.modelAPI)
    if (a.usable) {
      agent = a
      roles.push('agent')
      Object.assign(features, agent.features())
    } else {
      process.stderr.write(`@tanstack/ai ${sdk.versions.ai}: a tool's execute gets no call id; no agent role\n`)
    }
  }
  if (roles.length === 0) throw new Error(`${opts.dir}: nothing to serve`)
  // The SDK's own chat server resolves a new user message sent over a
  // pending approval (features.contract.serverSupersedesPending), on the
  // releases whose source was read for it. @tanstack/ai 0.42.0 converts the
  // request's UIMessages with convertMessagesToModelMessages
  // (dist/esm/activities/chat/index.js l.135), which leaves out a tool-call
  // part whose approval still waits: isToolCallIncluded keeps a part only
  // when it is input-complete, complete, approval-responded, error, or has
  // an output (activities/chat/messages.js l.92-93, used at l.124-135), so
  // the superseded call is neither in the prompt nor among the pending
  // calls the server runs (getPendingToolCallsFromMessages reads the
  // converted messages, index.js l.1037-1066): no dangling call reaches the
  // provider, and no 400 follows.
  if (SUPERSEDES_PENDING.has(sdk.versions.ai)) features.contract = { serverSupersedesPending: true }
  const name = Object.entries(sdk.versions)
    .map(([k, v]) => `${{ ai: '@tanstack/ai', client: '@tanstack/ai-client', openai: '@tanstack/ai-openai' }[k]} ${v}`)
    .join(', ')
  const info = {
    name: `ack-tanstack-adapter (${name}${agent && opts.modelAPI === 'canonical' ? ', canonical model' : ''})`,
    version: ADAPTER_VERSION,
    sdk: sdk.client ? '@tanstack/ai-client' : '@tanstack/ai',
    sdkVersion: sdk.versions.client ?? sdk.versions.ai,
    roles: roles.sort(),
    features,
  }

  const sessionVerbs = {
    send: async (s, body) => {
      fields(body, 'body', ['text'])
      if (typeof body.text !== 'string') throw badRequest('text: want a string')
      return s.send(body.text)
    },
    approval: async (s, body) => {
      fields(body, 'body', ['approvalId', 'approved'], ['reason'])
      if (typeof body.approvalId !== 'string' || body.approvalId === '') throw badRequest('approvalId: want an id')
      if (typeof body.approved !== 'boolean') throw badRequest('approved: want a boolean')
      return s.approve(body)
    },
    'tool-output': async (s, body) => {
      fields(body, 'body', ['toolCallId', 'output'])
      if (typeof body.toolCallId !== 'string' || body.toolCallId === '') throw badRequest('toolCallId: want an id')
      return s.toolOutput(body)
    },
    wait: async (s, body) => {
      fields(body, 'body', ['until'], ['toolCallId', 'orIdle', 'timeoutMs'])
      if (body.until !== 'idle' && body.until !== 'approval-requested') throw badRequest(`until: unknown condition ${JSON.stringify(body.until)}`)
      if (body.until === 'approval-requested' && typeof body.toolCallId !== 'string') throw badRequest('toolCallId: missing')
      const timeoutMs = Math.min(Math.max(Number(body.timeoutMs ?? 5000) || 5000, 1), 60_000)
      return s.wait({ until: body.until, toolCallId: body.toolCallId, orIdle: body.orIdle === true, timeoutMs })
    },
  }

  const route = (method, p) => {
    if (p === '/v1/info' && method === 'GET') return { handler: (req, res) => sendJSON(res, 200, info) }
    if (p === '/v1/agent/turn' && method === 'POST') {
      if (!agent) return { handler: (req, res) => sendJSON(res, 501, { error: { code: 'NotImplemented', message: 'no agent role: @tanstack/ai-openai is not installed' } }) }
      return { handler: async (req, res) => sendJSON(res, 200, await agent.turn(await readJSON(req))) }
    }
    if (!p.startsWith('/v1/client/sessions')) return null
    if (!client) return { handler: (req, res) => sendJSON(res, 501, { error: { code: 'NotImplemented', message: 'no client role for this release' } }) }
    if (p === '/v1/client/sessions' && method === 'POST') {
      return { handler: async (req, res) => sendJSON(res, 200, client.create(await readJSON(req))) }
    }
    const m = /^\/v1\/client\/sessions\/([^/]+)(?:\/([a-z-]+))?$/.exec(p)
    if (!m) return null
    const [, id, verb] = m
    const withSession = (fn) => async (req, res) => {
      const s = client.get(id)
      if (!s) {
        sendJSON(res, 404, { error: { code: 'NotFound', message: `no session ${id}` } })
        return
      }
      await fn(s, req, res)
    }
    if (!verb && method === 'DELETE') {
      return {
        handler: (req, res) => {
          if (!client.delete(id)) return sendJSON(res, 404, { error: { code: 'NotFound', message: `no session ${id}` } })
          res.writeHead(204).end()
        },
      }
    }
    if (verb === 'state' && method === 'GET') return { handler: withSession((s, req, res) => sendJSON(res, 200, s.state())) }
    if (verb in sessionVerbs && method === 'POST') {
      return { handler: withSession(async (s, req, res) => sendJSON(res, 200, await sessionVerbs[verb](s, await readJSON(req)))) }
    }
    return null
  }

  const server = await serve(route, { host: opts.host, port: opts.port })
  const { address, port } = server.address()
  process.stdout.write(`http://${address}:${port}\n`)
  const stop = () => server.close(() => process.exit(0))
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
}

main().catch((err) => {
  process.stderr.write(`tanstack adapter: ${err?.stack ?? err}\n`)
  process.exit(2)
})
