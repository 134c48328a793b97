// PRE-14: the user approves call A; the request also carries a resume entry
// for an interrupt the server never raised. PRE-04 holds (nothing runs for
// the stray entry); PRE-14 asks that the valid answer beside it still be
// resolved: A runs and the model gets its result.
//
// The request is built as TanStack's own client sends it and read with the
// SDK's own parser (uiMessagesToWire, chatParamsFromRequestBody); answers
// are resume entries from @tanstack/ai 0.44 (older lines bind an answer to
// its call's part, so a stray answer cannot be sent).
//
//   node repro/stray-answer-blocks-batch.mjs versions/ai-client-0.33.2
import { compare } from '../src/sdk.mjs'
import { line, verdict } from './lib.mjs'
import { textAdapter } from './model.mjs'

const sdk = await line()
if (compare(sdk.versions.ai, '0.44.0') < 0) {
  console.log(`@tanstack/ai ${sdk.versions.ai} binds an answer to its call's part: no stray answer can be sent`)
  process.exit(2)
}
const { chat, toolDefinition, uiMessagesToWire, chatParamsFromRequestBody } = sdk.ai
const ran = []
const deleteFile = toolDefinition({ name: 'deleteFile', description: 'deletes a file', inputSchema: { type: 'object' }, needsApproval: true }).server(async (args) => {
  ran.push(args.path)
  return { deleted: args.path }
})
const messages = [
  { id: 'u1', role: 'user', parts: [{ type: 'text', content: 'delete /a' }] },
  {
    id: 'a1',
    role: 'assistant',
    parts: [{ type: 'tool-call', id: 'A', name: 'deleteFile', arguments: JSON.stringify({ path: '/a' }), state: 'approval-responded', approval: { id: 'approval_A', needsApproval: true, approved: true } }],
  },
]
const body = {
  threadId: 't',
  runId: 'run-2',
  parentRunId: 'run-1',
  state: {},
  messages: uiMessagesToWire(messages),
  tools: [],
  context: [],
  forwardedProps: {},
  resume: [
    { interruptId: 'approval_A', status: 'resolved', payload: { approved: true } },
    { interruptId: 'approval_ghost', status: 'resolved', payload: { approved: true } },
  ],
}
const params = await chatParamsFromRequestBody(body)
const model = textAdapter(sdk, 'Deleted /a.')
let error = ''
try {
  for await (const chunk of chat({ ...params, adapter: model, tools: [deleteFile] })) {
    if (chunk.type === 'RUN_ERROR') error = chunk.message ?? chunk.error?.message ?? JSON.stringify(chunk)
  }
} catch (err) {
  error = err.message
}
console.log(`ran: ${JSON.stringify(ran)}; model calls: ${model.prompts.length}; error: ${error || 'none'}`)
const blocked = !ran.includes('/a')
verdict(blocked, blocked ? 'the stray entry blocked the valid approval: A never ran' : 'A ran beside the stray entry')
