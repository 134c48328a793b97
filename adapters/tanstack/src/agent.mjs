// The agent role: one turn is one chat() of @tanstack/ai, streamed, with
// its OpenAI adapter pointed at the harness's simulator and the harness's
// tools as TanStack server tools whose execute calls back to the harness.
//
// Input: the canonical history becomes the UIMessages a TanStack client
// would send (an approval answer lives on its tool-call part: state
// approval-responded, approval {id, approved}), which chat() reads as
// approvals when called in-process. Output: the AG-UI chunks chat()
// streams become the canonical messages and events of the turn.
import { canonicalAdapter } from './canonical.mjs'
import { badRequest, fields } from './http.mjs'
import { randomUUID } from 'node:crypto'
import { compare } from './sdk.mjs'

const MODEL = 'gpt-4o' // a name only: the simulator answers any model

/** NotExpressible is an input TanStack AI has no shape for. */
class NotExpressible extends Error {}

function notExpressible(message) {
  return new NotExpressible(message)
}

async function postJSON(url, body, signal) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  })
  const text = await res.text()
  let answer
  try {
    answer = JSON.parse(text)
  } catch {
    throw new Error(`the harness answered ${res.status}: ${text.slice(0, 200)}`)
  }
  if (!res.ok) throw new Error(`the harness answered ${res.status}: ${answer?.error?.message ?? text.slice(0, 200)}`)
  return answer
}

/**
 * toUIMessages turns the canonical history into the UIMessages a TanStack
 * client keeps. Results and answers join their call's part; a tool message
 * adds no message of its own. With resumes (@tanstack/ai 0.44 and later)
 * the answers this request gives (those after the last assistant message)
 * are also listed as they came, one resume entry each: a resume entry is
 * free-standing, so an answer that matches no request, or a second answer
 * for a call, has a shape there; without resumes an answer exists only on
 * its call's part, and those are not expressible.
 */
export function toUIMessages(history, { resumes = false } = {}) {
  if (!Array.isArray(history)) throw badRequest('messages: want an array')
  const system = []
  const out = []
  const calls = new Map() // toolCallId -> {message, part}
  const requests = new Map() // approvalId -> {toolCallId, runId}
  const answered = new Set()
  const answers = [] // this request's answers: {approvalId, toolCallId, approved, runId}
  const resulted = new Set()
  let lastAssistant = -1
  history.forEach((m, i) => {
    if (m?.role === 'assistant') lastAssistant = i
  })
  history.forEach((m, i) => {
    if (m === null || typeof m !== 'object') throw badRequest(`messages[${i}]: want an object`)
    const parts = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content
    if (!Array.isArray(parts)) throw badRequest(`messages[${i}].content: want an array or a string`)
    switch (m.role) {
      case 'system':
        system.push(parts.map((p) => p.text ?? '').join(''))
        return
      case 'user': {
        const ui = { id: `m${i}`, role: 'user', parts: [] }
        for (const [j, p] of parts.entries()) {
          if (p.type !== 'text') throw notExpressible(`messages[${i}].content[${j}]: a ${p.type} part in a user message`)
          ui.parts.push({ type: 'text', content: p.text })
        }
        out.push(ui)
        return
      }
      case 'assistant': {
        const ui = { id: `m${i}`, role: 'assistant', parts: [] }
        for (const [j, p] of parts.entries()) {
          switch (p.type) {
            case 'text':
              ui.parts.push({ type: 'text', content: p.text })
              break
            case 'tool-call': {
              if (p.providerExecuted) throw notExpressible(`messages[${i}].content[${j}]: TanStack AI has no provider-executed calls`)
              const part = { type: 'tool-call', id: p.toolCallId, name: p.toolName, arguments: JSON.stringify(p.input ?? {}), input: p.input, state: 'input-complete' }
              ui.parts.push(part)
              calls.set(p.toolCallId, { message: ui, part })
              break
            }
            case 'tool-approval-request': {
              const call = calls.get(p.toolCallId)
              if (!call) throw notExpressible(`messages[${i}].content[${j}]: an approval request for ${p.toolCallId}, which no tool-call part before it holds`)
              call.part.approval = { id: p.approvalId, needsApproval: true }
              call.part.state = 'approval-requested'
              requests.set(p.approvalId, { toolCallId: p.toolCallId, runId: p.providerOptions?.tanstack?.runId })
              break
            }
            case 'reasoning':
              ui.parts.push({ type: 'thinking', content: p.text })
              break
            default:
              throw notExpressible(`messages[${i}].content[${j}]: a ${p.type} part in an assistant message`)
          }
        }
        out.push(ui)
        return
      }
      case 'tool':
        for (const [j, p] of parts.entries()) {
          switch (p.type) {
            case 'tool-approval-response': {
              const request = requests.get(p.approvalId)
              const callId = request?.toolCallId
              const current = i > lastAssistant
              if (resumes && current) {
                answers.push({ approvalId: p.approvalId, toolCallId: callId, approved: p.approved, runId: request?.runId })
              }
              if (callId === undefined) {
                if (resumes && current) break // a resume entry only
                throw notExpressible(`messages[${i}].content[${j}]: the answer ${JSON.stringify(p.approvalId)} matches no approval request, and TanStack AI keeps an answer on its call's part`)
              }
              if (answered.has(callId)) {
                if (resumes && current) break // a resume entry only; the part keeps the first
                throw notExpressible(`messages[${i}].content[${j}]: a second answer for ${callId}, and a TanStack tool-call part holds one`)
              }
              // The answer goes on the part as it came: what TanStack AI makes
              // of a malformed one is what is under test.
              answered.add(callId)
              const { part } = calls.get(callId)
              part.approval.approved = p.approved
              part.state = 'approval-responded'
              break
            }
            case 'tool-result': {
              const call = calls.get(p.toolCallId)
              if (!call) throw notExpressible(`messages[${i}].content[${j}]: a result for ${p.toolCallId}, which no tool-call part holds`)
              resulted.add(p.toolCallId)
              const o = p.output ?? {}
              let content
              let state = 'complete'
              switch (o.type) {
                case 'json':
                  content = JSON.stringify(o.value)
                  call.part.output = o.value
                  break
                case 'text':
                  content = o.value
                  call.part.output = o.value
                  break
                case 'error-text':
                  content = o.value
                  state = 'error'
                  break
                case 'error-json':
                  content = JSON.stringify(o.value)
                  state = 'error'
                  break
                default:
                  throw notExpressible(`messages[${i}].content[${j}].output: TanStack AI has no ${o.type} result (a denied call is its approval-responded part with approved false)`)
              }
              call.message.parts.push({ type: 'tool-result', toolCallId: p.toolCallId, content, state, ...(state === 'error' ? { error: content } : {}) })
              break
            }
            default:
              throw notExpressible(`messages[${i}].content[${j}]: a ${p.type} part in a tool message`)
          }
        }
        return
      default:
        throw badRequest(`messages[${i}].role: unknown role ${JSON.stringify(m.role)}`)
    }
  })
  const runs = [...requests.values()].map((r) => r.runId).filter(Boolean)
  return { system, messages: out, knownCalls: new Set(calls.keys()), answers, lastRun: runs[runs.length - 1] }
}

/** Turn collects chat()'s chunks into the canonical answer of a turn. */
class Turn {
  constructor(known, run) {
    this.known = known // calls of the history: a re-sent call is not new
    this.run = run // the resume context each approval request carries
    this.messages = []
    this.events = []
    this.assistant = null // the assistant message of the current step
    this.tool = null // the tool message of the current step
    this.calls = new Map() // toolCallId -> {name, args, part}
    this.finishReason = undefined
    this.stepOpen = false
  }

  openStep() {
    if (this.stepOpen) return
    this.stepOpen = true
    this.events.push({ type: 'start-step' })
  }

  assistantMessage() {
    if (!this.assistant) {
      this.assistant = { role: 'assistant', content: [] }
      this.messages.push(this.assistant)
      this.tool = null
    }
    return this.assistant
  }

  toolMessage() {
    if (!this.tool) {
      this.tool = { role: 'tool', content: [] }
      this.messages.push(this.tool)
      this.assistant = null
    }
    return this.tool
  }

  text(delta) {
    if (!delta) return
    this.openStep()
    const msg = this.assistantMessage()
    const last = msg.content[msg.content.length - 1]
    if (last?.type === 'text') last.text += delta
    else msg.content.push({ type: 'text', text: delta })
    this.events.push({ type: 'text-delta', text: delta })
  }

  callStart(id, name) {
    if (this.known.has(id) || this.calls.has(id)) return // a call re-sent with its result
    this.calls.set(id, { name, args: '' })
  }

  callArgs(id, delta) {
    const c = this.calls.get(id)
    if (c && !c.part) c.args += delta ?? ''
  }

  callEnd(id, name, input) {
    const c = this.calls.get(id)
    if (!c || c.part) return
    let value = input
    if (value === undefined) {
      try {
        value = JSON.parse(c.args || '{}')
      } catch {
        value = c.args
      }
    }
    this.openStep()
    c.part = { type: 'tool-call', toolCallId: id, toolName: c.name ?? name, input: value }
    this.assistantMessage().content.push(c.part)
    this.events.push({ ...c.part })
  }

  result(id, content, failed) {
    const name = this.calls.get(id)?.name ?? this.names?.get(id) ?? ''
    let output
    let value
    let parsed = false
    try {
      value = JSON.parse(content)
      parsed = true
    } catch {
      value = content
    }
    if (failed) output = parsed ? { type: 'error-json', value } : { type: 'error-text', value: content }
    else output = parsed ? { type: 'json', value } : { type: 'text', value: content }
    const part = { type: 'tool-result', toolCallId: id, toolName: name, output }
    this.toolMessage().content.push(part)
    this.events.push({ ...part })
  }

  approval(toolCallId, approvalId) {
    // The request joins the message that holds its call (this turn's).
    const msg = this.messages.find((m) => m.role === 'assistant' && m.content.some((p) => p.type === 'tool-call' && p.toolCallId === toolCallId))
    // The interrupted run's id, which the answer must name to resume it,
    // rides on the request as provider options.
    const part = { type: 'tool-approval-request', approvalId, toolCallId, providerOptions: this.run }
    ;(msg ?? this.assistantMessage()).content.push(part)
    this.events.push({ ...part })
  }

  finishStep(reason) {
    this.finishReason = reason
    if (this.stepOpen) this.events.push({ type: 'finish-step', finishReason: reason })
    this.stepOpen = false
    this.assistant = null
    this.tool = null
  }
}

// TanStack's finish reasons are OpenAI's; the canonical ones the AI SDK's.
function finishReason(r) {
  return { tool_calls: 'tool-calls', stop: 'stop', length: 'length', content_filter: 'content-filter' }[r] ?? (r ? 'other' : 'stop')
}

/** AgentRole serves POST /v1/agent/turn. */
export class AgentRole {
  // modelAPI is 'wire' (the release's OpenAI adapter over the wires it
  // speaks) or 'canonical' (an application's own adapter speaking the kit's
  // canonical model API); one run certifies one of the two paths.
  constructor(sdk, modelAPI = 'wire') {
    this.sdk = sdk
    const o = sdk.openai
    this.apis = {}
    if (modelAPI === 'canonical') {
      // chat() takes an application's own adapter too: the canonical one
      // shows the harness the prompt before any provider wire.
      this.apis.canonical = (baseURL) => canonicalAdapter(baseURL)
    } else {
      if (typeof o.createOpenaiChatCompletions === 'function') {
        this.apis['openai-chat'] = (baseURL) => o.createOpenaiChatCompletions(MODEL, 'ack-test-key', { baseURL, maxRetries: 0 })
      }
      if (typeof o.createOpenaiChat === 'function') {
        this.apis['openai-responses'] = (baseURL) => o.createOpenaiChat(MODEL, 'ack-test-key', { baseURL, maxRetries: 0 })
      }
    }
    // @tanstack/ai 0.5 calls a tool's execute with its input only, so its
    // runs cannot be told apart; 0.42 and later pass the call id in the
    // execution context, which the agent role needs.
    this.usable = compare(sdk.versions.ai, '0.42.0') >= 0
    // From 0.44 an answer reaches the server as an AG-UI resume entry for
    // the interrupted run; before, on the call's UIMessage part.
    this.resumes = compare(sdk.versions.ai, '0.44.0') >= 0
    this.lastRun = new Map() // conversation -> the run id of its last turn
  }

  features() {
    return {
      // chat() with stream: false returns the final text only.
      modes: ['stream'],
      dynamicPolicy: false, // needsApproval is a boolean
      concurrency: false, // chat() has no concurrency option
      providerExecuted: false,
      toolkitErrors: false,
      denialPolicy: 'independent',
      toolErrors: 'result',
      modelAPIs: Object.keys(this.apis),
      steps: 'loop',
      untypedResults: true, // a tool message is a string; a denial a fixed text
      noDenialReasons: true, // an approval on a part is approved: boolean
      // Before 0.44 an answer lives on its call's part; from 0.44 it is a
      // resume entry, which names its interrupt and stands alone.
      boundApprovals: !this.resumes,
    }
  }

  async turn(body) {
    fields(body, 'body', ['mode', 'model', 'tools', 'toolkit', 'messages'], ['conversation', 'options', 'state'])
    fields(body.model, 'model', ['api'], ['baseURL'])
    if (body.mode !== 'stream') throw badRequest(`mode: this adapter runs stream turns only, not ${JSON.stringify(body.mode)}`)
    const make = this.apis[body.model.api]
    if (!make) throw badRequest(`model.api: ${JSON.stringify(body.model.api)} is not one of ${Object.keys(this.apis).join(', ')}`)
    if (!['provided', 'absent', 'empty'].includes(body.toolkit)) throw badRequest(`toolkit: unknown ${JSON.stringify(body.toolkit)}`)
    if (!Array.isArray(body.tools)) throw badRequest('tools: want an array')
    const options = body.options ?? {}
    fields(options, 'options', [], ['concurrency', 'maxSteps'])

    let input
    try {
      input = toUIMessages(body.messages, { resumes: this.resumes })
    } catch (err) {
      if (err instanceof NotExpressible) return { error: { code: 'NotExpressible', message: err.message } }
      throw err
    }
    const { toolDefinition } = this.sdk.ai
    let tools
    const names = new Map()
    if (body.toolkit === 'provided') {
      tools = []
      for (const [i, t] of body.tools.entries()) {
        fields(t, `tools[${i}]`, ['name', 'approval'], ['description', 'inputSchema', 'executeURL', 'policyURL', 'providerExecuted', 'serverLabel'])
        if (t.approval === 'dynamic') return { error: { code: 'NotExpressible', message: `tools[${i}]: TanStack AI's needsApproval is a boolean, never a policy` } }
        if (t.providerExecuted) return { error: { code: 'NotExpressible', message: `tools[${i}]: TanStack AI has no provider-run tools` } }
        const executeURL = t.executeURL
        tools.push(
          toolDefinition({
            name: t.name,
            description: t.description ?? t.name,
            ...(t.inputSchema ? { inputSchema: t.inputSchema } : {}),
            needsApproval: t.approval === 'always',
          }).server(async (args, ctx) => {
            const res = await postJSON(executeURL, { toolCallId: ctx?.toolCallId ?? '', input: args ?? {} })
            if (typeof res.error === 'string') throw new Error(res.error)
            return res.output
          }),
        )
      }
    } else if (body.toolkit === 'empty') {
      tools = []
    }

    // The request a TanStack client sends its server, built with the SDK's
    // own serializer (uiMessagesToWire, as fetchServerSentEvents does), read
    // with the SDK's own server-side parser (chatParamsFromRequestBody).
    const threadId = body.conversation || `thread-${randomUUID()}`
    const runId = `run-${randomUUID()}`
    const request = { threadId, runId, state: {}, messages: this.sdk.ai.uiMessagesToWire(input.messages), tools: [], context: [], forwardedProps: {}, data: {} }
    if (input.answers.length > 0) {
      // The run to resume: the one that asked (its id rides on the request
      // part), else the last run that asked anything, else the
      // conversation's last run (what a client holding the conversation
      // would name).
      const parent = input.answers.map((a) => a.runId).find(Boolean) ?? input.lastRun ?? this.lastRun.get(threadId)
      if (!parent) {
        return { error: { code: 'NotExpressible', message: 'the answers resume no run of this conversation: TanStack AI resumes the interrupted run by its id' } }
      }
      request.parentRunId = parent
      request.resume = input.answers.map((a) => ({ interruptId: a.approvalId, status: 'resolved', payload: { approved: a.approved } }))
    }
    this.lastRun.set(threadId, runId)
    let parsed
    try {
      parsed = await this.sdk.ai.chatParamsFromRequestBody(request)
    } catch (err) {
      return { error: { code: 'InvalidMessages', message: err?.message ?? String(err), sdkError: `${err?.name ?? 'Error'}: ${err?.message ?? err}` } }
    }
    const params = {
      adapter: make(body.model.baseURL),
      messages: parsed.messages,
      threadId: parsed.threadId,
      runId: parsed.runId,
      ...(parsed.parentRunId ? { parentRunId: parsed.parentRunId } : {}),
      ...(parsed.resume ? { resume: parsed.resume } : {}),
      ...(tools ? { tools } : {}),
      ...(input.system.length ? { systemPrompts: input.system } : {}),
    }
    if (options.maxSteps) params.agentLoopStrategy = this.sdk.ai.maxIterations(options.maxSteps)

    const turn = new Turn(input.knownCalls, { tanstack: { runId, threadId } })
    turn.names = new Map([...input.knownCalls].map((id) => [id, findName(input.messages, id)]))
    try {
      for await (const chunk of this.sdk.ai.chat(params)) {
        if (process.env.ACK_TANSTACK_TRACE) process.stderr.write(`chunk ${JSON.stringify(chunk)}\n`)
        this.consume(turn, chunk)
        if (turn.error) break
      }
    } catch (err) {
      return { error: { code: codeOf(err), message: err?.message ?? String(err), sdkError: `${err?.name ?? 'Error'}: ${err?.message ?? err}` } }
    }
    if (turn.error) return { error: turn.error }
    if (turn.stepOpen) turn.finishStep(turn.finishReason ?? 'stop')
    const reason = turn.pendingApproval ? 'tool-calls' : finishReason(turn.rawFinish)
    turn.events.push({ type: 'finish', finishReason: reason })
    return { messages: turn.messages, events: turn.events, finishReason: reason }
  }

  consume(turn, chunk) {
    switch (chunk.type) {
      case 'TEXT_MESSAGE_CONTENT':
        turn.text(chunk.delta)
        break
      case 'TOOL_CALL_START':
        turn.callStart(chunk.toolCallId, chunk.toolCallName ?? chunk.toolName)
        break
      case 'TOOL_CALL_ARGS':
        turn.callArgs(chunk.toolCallId, chunk.delta)
        break
      case 'TOOL_CALL_END':
        turn.callEnd(chunk.toolCallId, chunk.toolCallName ?? chunk.toolName, chunk.input)
        break
      case 'TOOL_CALL_RESULT': {
        const failed = chunk.state === 'output-error' || chunk.metadata?.tanstack?.state === 'output-error'
        turn.result(chunk.toolCallId, typeof chunk.content === 'string' ? chunk.content : JSON.stringify(chunk.content), failed)
        break
      }
      case 'CUSTOM': {
        const v = chunk.value ?? chunk.data
        if (chunk.name === 'approval-requested' && v) {
          turn.approval(v.toolCallId, v.approval?.id)
          turn.pendingApproval = true
        }
        break
      }
      case 'RUN_FINISHED': {
        for (const it of chunk.outcome?.type === 'interrupt' ? chunk.outcome.interrupts : []) {
          if (it.metadata?.kind === 'approval' || it.reason === 'tool_call') {
            turn.approval(it.toolCallId, it.id)
            turn.pendingApproval = true
          }
        }
        turn.rawFinish = chunk.finishReason ?? chunk.metadata?.tanstack?.finishReason
        turn.finishStep(finishReason(turn.rawFinish))
        break
      }
      case 'RUN_ERROR': {
        const message = chunk.message ?? chunk.error?.message ?? 'run error'
        const code = String(chunk.code ?? chunk.error?.code ?? '')
        // The SDK's refusal of a resume batch lists its interrupt errors; a
        // provider's error carries its HTTP status (as the code from 0.44,
        // at the head of the OpenAI client's message before) and the
        // provider's error body as rawEvent.
        let kind = 'Other'
        if (chunk.metadata?.tanstack?.interruptErrors) kind = 'InvalidApproval'
        else if (/^\d{3}$/.test(code) || /^\d{3} /.test(message)) kind = 'Model'
        turn.error = { code: kind, message, sdkError: `RUN_ERROR${code ? ` (${code})` : ''}: ${message}` }
        break
      }
      default:
        break
    }
  }
}

function findName(messages, id) {
  for (const m of messages) for (const p of m.parts) if (p.type === 'tool-call' && p.id === id) return p.name
  return ''
}

function codeOf(err) {
  const status = err?.status ?? err?.cause?.status
  if (typeof status === 'number' || /APIError|status code/i.test(`${err?.name} ${err?.message}`)) return 'Model'
  return 'Other'
}
