// A text adapter of TanStack AI's documented shape ({kind: 'text', name,
// model, chatStream, structuredOutput}) that answers model call n with
// replies[n] (a text, or {calls: [{id, name, input}]}; the last reply
// repeats) and records the prompts it was given.
import { compare } from '../src/sdk.mjs'

export function textAdapter(sdk, ...replies) {
  const prompts = []
  const ts = () => Date.now()
  const name = (tool) => (compare(sdk.versions.ai, '0.13.0') >= 0 ? { toolCallName: tool, toolName: tool } : { toolName: tool })
  return {
    prompts,
    kind: 'text',
    name: 'repro',
    model: 'repro-model',
    '~types': {},
    async *chatStream(options) {
      const n = prompts.length
      prompts.push(JSON.parse(JSON.stringify(options.messages)))
      const reply = replies[Math.min(n, replies.length - 1)]
      const runId = `run-model-${n}`
      if (compare(sdk.versions.ai, '0.13.0') >= 0) yield { type: 'RUN_STARTED', timestamp: ts(), runId, threadId: 't' }
      if (typeof reply === 'string') {
        yield { type: 'TEXT_MESSAGE_START', timestamp: ts(), messageId: `mt${n}`, role: 'assistant' }
        yield { type: 'TEXT_MESSAGE_CONTENT', timestamp: ts(), messageId: `mt${n}`, delta: reply }
        yield { type: 'TEXT_MESSAGE_END', timestamp: ts(), messageId: `mt${n}` }
        yield { type: 'RUN_FINISHED', timestamp: ts(), runId, threadId: 't', finishReason: 'stop' }
        return
      }
      for (const c of reply.calls) {
        yield { type: 'TOOL_CALL_START', timestamp: ts(), toolCallId: c.id, ...name(c.name) }
        yield { type: 'TOOL_CALL_ARGS', timestamp: ts(), toolCallId: c.id, delta: JSON.stringify(c.input) }
        yield { type: 'TOOL_CALL_END', timestamp: ts(), toolCallId: c.id, ...name(c.name), input: c.input }
      }
      yield { type: 'RUN_FINISHED', timestamp: ts(), runId, threadId: 't', finishReason: 'tool_calls' }
    },
    async structuredOutput() {
      throw new Error('not used')
    },
  }
}
