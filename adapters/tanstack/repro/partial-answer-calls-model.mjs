// REQ-03: two calls wait for approval; the user answers only call_1. The
// turn must not call the model while call_2 still waits (or must refuse
// the partial answer); the model must never see a history without call_2.
//
//   node repro/partial-answer-calls-model.mjs versions/ai-client-0.22.1
import { compare } from '../src/sdk.mjs'
import { line, verdict } from './lib.mjs'
import { textAdapter } from './model.mjs'

const sdk = await line()
const { chat, toolDefinition, uiMessagesToWire, chatParamsFromRequestBody } = sdk.ai
const deleteFile = toolDefinition({ name: 'deleteFile', description: 'deletes a file', inputSchema: { type: 'object' }, needsApproval: true }).server(async (args) => ({ deleted: args.path }))
const call = (id, path, approval) => ({ type: 'tool-call', id, name: 'deleteFile', arguments: JSON.stringify({ path }), ...approval })
const messages = [
  { id: 'u1', role: 'user', parts: [{ type: 'text', content: 'delete /a and /b' }] },
  {
    id: 'a1',
    role: 'assistant',
    parts: [
      call('call_1', '/a', { state: 'approval-responded', approval: { id: 'approval_call_1', needsApproval: true, approved: true } }),
      call('call_2', '/b', { state: 'approval-requested', approval: { id: 'approval_call_2', needsApproval: true } }),
    ],
  },
]
const body = { threadId: 't', runId: 'run-2', state: {}, messages: uiMessagesToWire(messages), tools: [], context: [], forwardedProps: {} }
if (compare(sdk.versions.ai, '0.44.0') >= 0) {
  body.parentRunId = 'run-1'
  body.resume = [{ interruptId: 'approval_call_1', status: 'resolved', payload: { approved: true } }]
}
const params = await chatParamsFromRequestBody(body)
const model = textAdapter(sdk, 'Deleted /a.')
let error
for await (const chunk of chat({ ...params, adapter: model, tools: [deleteFile] })) {
  if (chunk.type === 'RUN_ERROR') error = chunk.message ?? chunk.error?.message
}
const calls = model.prompts.map((p) => p.flatMap((m) => (m.toolCalls ?? []).map((c) => c.id)))
console.log(`model calls: ${model.prompts.length}; the calls each prompt holds: ${JSON.stringify(calls)}; error: ${error ?? 'none'}`)
const defect = model.prompts.length > 0
verdict(defect, defect ? `the model was called while call_2 waits for approval${calls[0].includes('call_2') ? '' : ', with call_2 left out of its prompt'}` : 'the model was not called')
