// A TanStack AI text adapter of the application's own (the shape
// @tanstack/ai documents for adapters: {kind: 'text', name, model,
// chatStream, structuredOutput}) that forwards each model call of chat()
// to the harness's canonical model API, unchanged: the prompt as chat()
// hands it to its adapter, in the kit's canonical model.
//
// TanStack's prompt is ModelMessages: an assistant message's toolCalls are
// tool-call parts; a tool message is one result whose content is a string
// (TanStack gives results no type), so it is a text result, or an
// error-text result when the message carries an error.

function part(p, where) {
  if (typeof p === 'string') return { type: 'text', text: p }
  if (p.type === 'text') return { type: 'text', text: p.content ?? p.text ?? '' }
  throw new Error(`${where}: a ${p.type} content part has no canonical form here`)
}

function content(c, where) {
  if (c === null || c === undefined) return []
  if (typeof c === 'string') return c === '' ? [] : [{ type: 'text', text: c }]
  return c.map((p, k) => part(p, `${where}[${k}]`))
}

function input(args) {
  if (typeof args !== 'string' || args.trim() === '') return {}
  try {
    return JSON.parse(args)
  } catch {
    return args
  }
}

/** prompt turns chat()'s adapter options into a canonical request. */
export function prompt(options, stream) {
  const messages = []
  const system = (options.systemPrompts ?? []).map((s) => (typeof s === 'string' ? s : s.content)).filter(Boolean)
  if (system.length) messages.push({ role: 'system', content: system.join('\n\n') })
  const names = new Map()
  for (const [i, m] of options.messages.entries()) {
    const where = `messages[${i}]`
    if (m.role === 'user') {
      messages.push({ role: 'user', content: content(m.content, `${where}.content`) })
    } else if (m.role === 'assistant') {
      const parts = content(m.content, `${where}.content`)
      for (const tc of m.toolCalls ?? []) {
        names.set(tc.id, tc.function.name)
        parts.push({ type: 'tool-call', toolCallId: tc.id, toolName: tc.function.name, input: input(tc.function.arguments) })
      }
      messages.push({ role: 'assistant', content: parts })
    } else if (m.role === 'tool') {
      const text = typeof m.content === 'string' ? m.content : content(m.content, `${where}.content`).map((p) => p.text).join('')
      const output = m.error !== undefined ? { type: 'error-text', value: m.error || text } : { type: 'text', value: text }
      const result = { type: 'tool-result', toolCallId: m.toolCallId, toolName: names.get(m.toolCallId) ?? '', output }
      const last = messages[messages.length - 1]
      if (last?.role === 'tool') last.content.push(result)
      else messages.push({ role: 'tool', content: [result] })
    } else {
      throw new Error(`${where}.role: ${m.role} has no canonical form`)
    }
  }
  const tools = (options.tools ?? []).map((t) => ({
    name: t.name,
    description: t.description ?? '',
    inputSchema: t.inputSchema && !t.inputSchema['~standard'] ? t.inputSchema : { type: 'object' },
  }))
  return { messages, ...(tools.length ? { tools } : {}), stream }
}

const REASONS = { 'tool-calls': 'tool_calls', stop: 'stop', length: 'length', 'content-filter': 'content_filter' }

// The finish reason of a response that made tool calls is tool_calls,
// whatever the model said: chat() runs its tool phase (approvals included)
// only on that reason, and TanStack's own text adapters report it whenever
// they emitted a tool call (@tanstack/openai-base 0.10.15
// chat-completions-text.js l.747, responses-text.js l.1085; 0.9.9, of
// the 0.22.1 line: l.758, l.1055). A text adapter of the application's own
// follows that contract.
const finishOf = (reason, madeCalls) => (madeCalls ? 'tool_calls' : REASONS[reason] ?? 'stop')

async function* sse(body) {
  const decoder = new TextDecoder()
  let buf = ''
  for await (const chunk of body) {
    buf += decoder.decode(chunk, { stream: true })
    let i
    while ((i = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, i)
      buf = buf.slice(i + 2)
      const data = block
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).replace(/^ /, ''))
        .join('\n')
      if (data) yield JSON.parse(data)
    }
  }
}

/** canonicalAdapter is the adapter for one turn's model endpoint. */
export function canonicalAdapter(baseURL) {
  const url = `${baseURL.replace(/\/$/, '')}/canonical`
  let n = 0
  return {
    kind: 'text',
    name: 'ack-canonical',
    model: 'ack-canonical',
    '~types': {},
    async *chatStream(options) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(prompt(options, true)),
        signal: options.request?.signal ?? options.abortController?.signal,
      })
      if (!res.ok) {
        const text = await res.text()
        const err = new Error(`${res.status} ${text}`)
        err.status = res.status
        throw err
      }
      const ts = () => Date.now()
      const runId = `canonical-${++n}`
      const messageId = `${runId}-text`
      let textOpen = false
      const started = new Set()
      let ended = 0
      const closeText = function* () {
        if (textOpen) {
          textOpen = false
          yield { type: 'TEXT_MESSAGE_END', timestamp: ts(), messageId }
        }
      }
      yield { type: 'RUN_STARTED', timestamp: ts(), runId }
      for await (const ev of sse(res.body)) {
        switch (ev.type) {
          case 'text-delta':
            if (!textOpen) {
              textOpen = true
              yield { type: 'TEXT_MESSAGE_START', timestamp: ts(), messageId, role: 'assistant' }
            }
            yield { type: 'TEXT_MESSAGE_CONTENT', timestamp: ts(), messageId, delta: ev.text }
            break
          case 'tool-input-start':
            yield* closeText()
            started.add(ev.toolCallId)
            yield { type: 'TOOL_CALL_START', timestamp: ts(), toolCallId: ev.toolCallId, toolCallName: ev.toolName, toolName: ev.toolName }
            break
          case 'tool-input-delta':
            yield { type: 'TOOL_CALL_ARGS', timestamp: ts(), toolCallId: ev.toolCallId, delta: ev.delta }
            break
          case 'tool-call':
            yield* closeText()
            if (!started.has(ev.toolCallId)) {
              yield { type: 'TOOL_CALL_START', timestamp: ts(), toolCallId: ev.toolCallId, toolCallName: ev.toolName, toolName: ev.toolName }
              yield { type: 'TOOL_CALL_ARGS', timestamp: ts(), toolCallId: ev.toolCallId, delta: JSON.stringify(ev.input ?? {}) }
            }
            ended++
            yield { type: 'TOOL_CALL_END', timestamp: ts(), toolCallId: ev.toolCallId, toolCallName: ev.toolName, toolName: ev.toolName, input: ev.input }
            break
          case 'finish':
            yield* closeText()
            yield { type: 'RUN_FINISHED', timestamp: ts(), runId, finishReason: finishOf(ev.finishReason, ended > 0) }
            return
          default:
            // reasoning and provider-run parts: nothing TanStack's turn uses
            break
        }
      }
    },
    async structuredOutput() {
      throw new Error('the canonical adapter does not produce structured output')
    },
  }
}
