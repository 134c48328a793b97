// REQ-06: in one step the model calls deleteFile (needs approval) and
// readFile (needs none). The turn must end with every call either waiting
// for approval or holding a result: readFile should have run.
//
//   node repro/free-call-deferred.mjs versions/ai-client-0.33.2
import { line, verdict } from './lib.mjs'
import { textAdapter } from './model.mjs'

const sdk = await line()
const { chat, toolDefinition } = sdk.ai
const ran = []
const tool = (name, needsApproval) =>
  toolDefinition({ name, description: name, inputSchema: { type: 'object' }, needsApproval }).server(async (args) => {
    ran.push(name)
    return { ok: true, args }
  })
const model = textAdapter(sdk, { calls: [{ id: 'call_1', name: 'deleteFile', input: { path: '/a' } }, { id: 'call_2', name: 'readFile', input: { path: '/b' } }] }, 'Done.')
const asked = []
const results = []
for await (const chunk of chat({ adapter: model, messages: [{ role: 'user', content: 'read /b, then delete /a' }], tools: [tool('deleteFile', true), tool('readFile', false)] })) {
  if (chunk.type === 'TOOL_CALL_RESULT') results.push(chunk.toolCallId)
  if (chunk.type === 'CUSTOM' && chunk.name === 'approval-requested') asked.push((chunk.value ?? chunk.data).toolCallId)
  if (chunk.type === 'RUN_FINISHED' && chunk.outcome?.type === 'interrupt') asked.push(...chunk.outcome.interrupts.map((i) => i.toolCallId))
}
console.log(`approval asked for: ${JSON.stringify(asked)}; ran: ${JSON.stringify(ran)}; results streamed: ${JSON.stringify(results)}`)
const orphaned = !ran.includes('readFile') && !asked.includes('call_2')
verdict(orphaned, orphaned ? 'readFile (call_2) ended the turn with neither a result nor a pending approval' : 'every call is accounted for')
