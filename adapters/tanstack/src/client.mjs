// The client role: one @tanstack/ai-client ChatClient per session, talking
// to the harness's chat server with the SDK's own SSE connection adapter.
// The state is the client's own messages; every wait is answered from the
// client's change notifications.
import { randomUUID } from 'node:crypto'
import { badRequest, fields } from './http.mjs'

/**
 * toolState maps a TanStack tool-call part onto the canonical states. The
 * SDK names the states up to approval-responded itself (awaiting-input,
 * input-streaming, input-complete, approval-requested, approval-responded);
 * 0.33 adds complete and error. An outcome the SDK keeps as the part's
 * output or as a tool-result part (its areAllToolsComplete reads both) is
 * output-available, or output-error for an error result. TanStack has no
 * denied state: a denied call stays approval-responded, as the SDK keeps it.
 */
function toolState(part, result) {
  if (part.state === 'error' || result?.state === 'error' || result?.error !== undefined) return 'output-error'
  if (part.state === 'complete' || result !== undefined) return 'output-available'
  if (part.output !== undefined && part.state !== 'approval-requested' && part.state !== 'approval-responded') {
    return 'output-available'
  }
  if (part.output !== undefined && part.state === 'approval-responded' && part.approval?.approved === true) {
    return 'output-available'
  }
  return part.state
}

function parseArguments(part) {
  if (part.input !== undefined) return part.input
  if (typeof part.arguments !== 'string' || part.arguments === '') return undefined
  try {
    return JSON.parse(part.arguments)
  } catch {
    return undefined // still streaming
  }
}

function textOf(part) {
  return typeof part.content === 'string' ? part.content : (part.text ?? '')
}

/** A Session is one ChatClient under test. */
class Session {
  constructor(sdk, cfg) {
    this.sdk = sdk
    this.history = new Map() // message id + tool call id -> the part's states
    this.waiters = new Set()
    this.pending = 0 // SDK calls of this adapter not settled yet
    this.closed = false
    const { ChatClient, fetchServerSentEvents } = sdk.client
    const { toolDefinition } = sdk.ai
    // Each session tool as the application would define it: no input or
    // approval schema (the harness's tools have none), needsApproval as
    // given, no execute (client-side outputs come through addToolResult).
    const tools = cfg.tools.map((t) =>
      toolDefinition({ name: t.name, description: t.name, ...(t.needsApproval ? { needsApproval: true } : {}) }).client(),
    )
    const changed = () => this.changed()
    this.client = new ChatClient({
      connection: fetchServerSentEvents(cfg.chatURL),
      tools,
      onMessagesChange: (messages) => {
        if (process.env.ACK_TANSTACK_TRACE) process.stderr.write(`messages ${JSON.stringify(messages)}\n`)
        this.record(messages)
        changed()
      },
      onLoadingChange: changed,
      onStatusChange: changed,
      onErrorChange: changed,
      onError: changed,
      onQueueChange: changed,
      onResumeStateChange: changed,
    })
  }

  /**
   * record appends every state change of every tool-call part it sees; a
   * part's history is its own (a call the client holds twice has two).
   */
  record(messages) {
    const results = resultsOf(messages)
    for (const m of messages) {
      for (const p of m.parts ?? []) {
        if (p.type !== 'tool-call') continue
        const key = `${m.id}\u0000${p.id}`
        const st = toolState(p, results.get(p.id))
        const h = this.history.get(key) ?? []
        if (h[h.length - 1] !== st) h.push(st)
        this.history.set(key, h)
      }
    }
  }

  /**
   * busy: a request is loading, an SDK call of the adapter has not
   * settled, an interrupt resume is being submitted (0.33), or messages
   * wait in the client's queue (0.22, 0.33).
   */
  busy() {
    const c = this.client
    return (
      c.getIsLoading() ||
      this.pending > 0 ||
      (typeof c.getInterruptState === 'function' && c.getInterruptState().resuming === true) ||
      (typeof c.getQueue === 'function' && c.getQueue().length > 0)
    )
  }

  state() {
    const messages = this.client.getMessages()
    this.record(messages)
    const results = resultsOf(messages)
    const out = []
    for (const m of messages) {
      const parts = []
      for (const p of m.parts ?? []) {
        if (p.type === 'text') {
          parts.push({ type: 'text', text: textOf(p) })
        } else if (p.type === 'tool-call') {
          const result = results.get(p.id)
          const part = { type: 'tool-call', toolCallId: p.id, toolName: p.name ?? '', state: toolState(p, result), history: this.history.get(`${m.id}\u0000${p.id}`) ?? [] }
          const input = parseArguments(p)
          if (input !== undefined) part.input = input
          if (p.approval) {
            part.approval = { id: p.approval.id }
            if (typeof p.approval.approved === 'boolean') part.approval.approved = p.approval.approved
          }
          if (part.state === 'output-available') {
            const output = p.output !== undefined ? p.output : parseResult(result)
            if (output !== undefined) part.output = output
          }
          if (part.state === 'output-error') part.errorText = result?.error ?? result?.content ?? 'error'
          parts.push(part)
        }
      }
      if (m.role === 'user' || m.role === 'assistant' || m.role === 'system') {
        out.push({ id: m.id, role: m.role, parts })
      }
    }
    const st = { busy: this.busy(), messages: out }
    const queued = typeof this.client.getQueue === 'function' ? this.client.getQueue() : []
    if (queued.length > 0) {
      st.queued = queued.map((q) => ({ id: q.id, role: 'user', parts: [{ type: 'text', text: typeof q.content === 'string' ? q.content : JSON.stringify(q.content) }] }))
    }
    const err = this.client.getError()
    if (err) st.error = err.message
    return st
  }

  // changed wakes the waiters once the SDK's synchronous hand-offs have run
  // (a stream that ends hands over to a queued continuation in the same
  // tick, after telling its listeners it stopped loading).
  changed() {
    if (this.scheduled) return
    this.scheduled = true
    setImmediate(() => {
      this.scheduled = false
      for (const w of [...this.waiters]) w()
    })
  }

  /** track runs an SDK call, counting it busy until it settles. */
  track(promise) {
    this.pending++
    const settle = () => {
      this.pending--
      this.changed()
    }
    promise.then(settle, (err) => {
      this.lastError = err
      settle()
    })
  }

  /**
   * act calls the SDK. A refusal is a throw in the method's synchronous
   * part (TanStack checks its preconditions there), which has rejected the
   * call's promise before act looks at it; otherwise the call goes on, and
   * the session counts busy until it settles.
   */
  async act(call) {
    let promise
    try {
      promise = Promise.resolve(call())
    } catch (err) {
      return { refused: true, error: err?.message || String(err) }
    }
    let refused = null
    promise.catch((err) => {
      refused = err ?? new Error('refused')
    })
    // A promise rejected already has its handler queued ahead of this await.
    await null
    if (refused) return { refused: true, error: refused?.message || String(refused) }
    this.track(promise)
    return { refused: false }
  }

  /**
   * send is sendMessage. The message is sent (a new user message), held
   * in the client's queue (0.22, 0.33: queued), refused with the error the
   * SDK throws (0.33 with interrupts pending), or dropped without a word
   * (0.4 while loading), which is a refusal with no reason.
   */
  async send(text) {
    const users = () => this.client.getMessages().filter((m) => m.role === 'user').length
    const queue = () => (typeof this.client.getQueue === 'function' ? this.client.getQueue().length : 0)
    const [u0, q0] = [users(), queue()]
    const res = await this.act(() => this.client.sendMessage(text))
    if (res.refused) return res
    if (queue() > q0) return { refused: false, queued: true }
    if (users() > u0) return res
    return { refused: true, error: '' }
  }

  approve({ approvalId, approved }) {
    return this.act(() => this.client.addToolApprovalResponse({ id: approvalId, approved }))
  }

  toolOutput({ toolCallId, output }) {
    const part = this.client
      .getMessages()
      .flatMap((m) => m.parts ?? [])
      .find((p) => p.type === 'tool-call' && p.id === toolCallId)
    if (!part) return { refused: true, error: `no tool call ${toolCallId}` }
    return this.act(() => this.client.addToolResult({ toolCallId, tool: part.name, output, state: 'output-available' }))
  }

  holds(cond, st) {
    if (cond.orIdle && !st.busy) return true
    if (cond.until === 'idle') return !st.busy
    return st.messages.some((m) => m.parts.some((p) => p.type === 'tool-call' && p.toolCallId === cond.toolCallId && p.state === 'approval-requested'))
  }

  /** wait answers once the condition holds, or when timeoutMs passes. */
  wait(cond) {
    return new Promise((resolve) => {
      const check = () => {
        const st = this.state()
        if (this.closed || this.holds(cond, st)) {
          finish(st)
        }
      }
      const finish = (st) => {
        clearTimeout(timer)
        this.waiters.delete(check)
        resolve(st)
      }
      const timer = setTimeout(() => finish(this.state()), cond.timeoutMs)
      this.waiters.add(check)
      check()
    })
  }

  close() {
    this.closed = true
    this.client.stop()
    if (typeof this.client.dispose === 'function') this.client.dispose()
    for (const w of [...this.waiters]) w()
  }
}

function resultsOf(messages) {
  const out = new Map()
  for (const m of messages) {
    for (const p of m.parts ?? []) {
      if (p.type === 'tool-result') out.set(p.toolCallId, p)
    }
  }
  return out
}

function parseResult(result) {
  if (result === undefined) return undefined
  if (typeof result.content !== 'string') return result.content
  try {
    return JSON.parse(result.content)
  } catch {
    return result.content
  }
}

/** ClientRole serves the client endpoints. */
export class ClientRole {
  constructor(sdk, spoken) {
    this.sdk = sdk
    this.spoken = spoken // {protocol, dialect}
    this.sessions = new Map()
  }

  create(body) {
    if (process.env.ACK_TANSTACK_TRACE) process.stderr.write(`session ${JSON.stringify(body)}\n`)
    fields(body, 'body', ['chatURL', 'protocol'], ['dialect', 'tools'])
    if (typeof body.chatURL !== 'string' || !/^https?:\/\//.test(body.chatURL)) throw badRequest('chatURL: want an http(s) URL')
    if (body.protocol !== this.spoken.protocol) {
      throw badRequest(`protocol: this client speaks ${this.spoken.protocol}, not ${body.protocol}`)
    }
    const dialect = body.dialect ?? this.spoken.defaultDialect
    if (dialect !== this.spoken.dialect) {
      throw badRequest(`dialect: this client speaks ${this.spoken.protocol} in ${this.spoken.dialect}, not ${dialect}`)
    }
    const tools = body.tools ?? []
    if (!Array.isArray(tools)) throw badRequest('tools: want an array')
    tools.forEach((t, i) => {
      fields(t, `tools[${i}]`, ['name'], ['needsApproval', 'clientSide'])
      if (typeof t.name !== 'string' || t.name === '') throw badRequest(`tools[${i}].name: want a name`)
    })
    const id = randomUUID()
    this.sessions.set(id, new Session(this.sdk, { chatURL: body.chatURL, tools }))
    return { sessionId: id }
  }

  get(id) {
    return this.sessions.get(id)
  }

  delete(id) {
    const s = this.sessions.get(id)
    if (!s) return false
    this.sessions.delete(id)
    s.close()
    return true
  }
}
