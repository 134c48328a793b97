// A text adapter of TanStack AI's documented shape ({kind: 'text', name,
// model, chatStream, structuredOutput}) that answers every call with one
// text and records the prompts it was given.
import { compare } from '../src/sdk.mjs'

export function textAdapter(sdk, text) {
  const prompts = []
  const ts = () => Date.now()
  const runId = 'run-model'
  return {
    prompts,
    kind: 'text',
    name: 'repro',
    model: 'repro-model',
    '~types': {},
    async *chatStream(options) {
      prompts.push(JSON.parse(JSON.stringify(options.messages)))
      if (compare(sdk.versions.ai, '0.13.0') >= 0) yield { type: 'RUN_STARTED', timestamp: ts(), runId, threadId: 't' }
      yield { type: 'TEXT_MESSAGE_START', timestamp: ts(), messageId: 'mt', role: 'assistant' }
      yield { type: 'TEXT_MESSAGE_CONTENT', timestamp: ts(), messageId: 'mt', delta: text }
      yield { type: 'TEXT_MESSAGE_END', timestamp: ts(), messageId: 'mt' }
      yield { type: 'RUN_FINISHED', timestamp: ts(), runId, threadId: 't', finishReason: 'stop' }
    },
    async structuredOutput() {
      throw new Error('not used')
    },
  }
}
