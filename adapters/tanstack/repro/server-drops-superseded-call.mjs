// CHAIN-05 (serverSupersedesPending): the chat client sends a new user
// message while call_1 still waits for its approval (C3), so the request's
// history holds call_1 without an answer. This probe shows what the line's
// own chat server does with that request: whether the prompt it sends the
// model holds call_1 without a result (a dangling call every provider
// refuses), and whether call_1 runs. Exit 0 when the server drops the
// superseded call (no dangling call, nothing runs), 1 otherwise.
//
//   node repro/server-drops-superseded-call.mjs versions/ai-client-0.22.1
import { compare } from '../src/sdk.mjs'
import { line } from './lib.mjs'
import { textAdapter } from './model.mjs'

const sdk = await line()
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
    parts: [{ type: 'tool-call', id: 'call_1', name: 'deleteFile', arguments: JSON.stringify({ path: '/a' }), state: 'approval-requested', approval: { id: 'approval_call_1', needsApproval: true } }],
  },
  { id: 'u2', role: 'user', parts: [{ type: 'text', content: 'never mind, what time is it?' }] },
]
const body = { threadId: 't', runId: 'run-2', state: {}, messages: uiMessagesToWire(messages), tools: [], context: [], forwardedProps: {} }
if (compare(sdk.versions.ai, '0.44.0') >= 0) body.parentRunId = 'run-1'
const params = await chatParamsFromRequestBody(body)
const model = textAdapter(sdk, 'It is noon.')
let error
for await (const chunk of chat({ ...params, adapter: model, tools: [deleteFile] })) {
  if (chunk.type === 'RUN_ERROR') error = chunk.message ?? chunk.error?.message
}
const prompt = model.prompts[0] ?? []
const calls = prompt.flatMap((m) => (m.toolCalls ?? []).map((c) => c.id))
const results = prompt.filter((m) => m.role === 'tool').map((m) => m.toolCallId)
const dangling = calls.filter((id) => !results.includes(id))
console.log(`@tanstack/ai ${sdk.versions.ai}: model calls: ${model.prompts.length}; calls in the prompt: ${JSON.stringify(calls)}; results: ${JSON.stringify(results)}; deleteFile ran for: ${JSON.stringify(ran)}; error: ${error ?? 'none'}`)
const dropped = model.prompts.length > 0 && dangling.length === 0 && !calls.includes('call_1') && ran.length === 0
if (dropped) console.log('DROPPED: the server dropped the superseded call_1: the prompt holds no dangling call, and nothing ran')
else if (model.prompts.length === 0) console.log('NOT DROPPED: the server did not call the model with the new message')
else console.log(`NOT DROPPED: the prompt holds ${JSON.stringify(dangling)} without a result, or call_1 ran (${JSON.stringify(ran)})`)
process.exit(dropped ? 0 : 1)
