// WIRE-04: the client sends the same approval request twice (a retry after
// a dropped connection). The approved call must not run again.
//
//   node repro/replayed-request-runs-again.mjs versions/ai-client-0.33.2
import { compare } from '../src/sdk.mjs'
import { line, verdict } from './lib.mjs'
import { textAdapter } from './model.mjs'

const sdk = await line()
const { chat, toolDefinition, uiMessagesToWire, chatParamsFromRequestBody } = sdk.ai
let runs = 0
const deleteFile = toolDefinition({ name: 'deleteFile', description: 'deletes a file', inputSchema: { type: 'object' }, needsApproval: true }).server(async () => {
  runs++
  return { ok: true }
})
const messages = [
  { id: 'u1', role: 'user', parts: [{ type: 'text', content: 'delete /a' }] },
  {
    id: 'a1',
    role: 'assistant',
    parts: [{ type: 'tool-call', id: 'call_1', name: 'deleteFile', arguments: '{"path":"/a"}', state: 'approval-responded', approval: { id: 'approval_call_1', needsApproval: true, approved: true } }],
  },
]
const body = { threadId: 't', runId: 'run-2', state: {}, messages: uiMessagesToWire(messages), tools: [], context: [], forwardedProps: {} }
if (compare(sdk.versions.ai, '0.44.0') >= 0) {
  body.parentRunId = 'run-1'
  body.resume = [{ interruptId: 'approval_call_1', status: 'resolved', payload: { approved: true } }]
}
for (let i = 0; i < 2; i++) {
  const params = await chatParamsFromRequestBody(structuredClone(body))
  for await (const chunk of chat({ ...params, adapter: textAdapter(sdk, 'Deleted.'), tools: [deleteFile] })) void chunk
}
console.log(`the same request twice: deleteFile ran ${runs} time(s)`)
verdict(runs > 1, runs > 1 ? 'the replayed request ran the approved call again' : 'ran once')
