// CHAIN-06: the continuation re-sends call A (TOOL_CALL_START/ARGS/END)
// before its result, as TanStack AI's own server does for an approved call
// it runs at the start of a continuation. The client must still hold A once.
//
//   node repro/recalled-call-duplicated.mjs versions/ai-client-0.33.2
import { chunks, client as makeClient } from './chunks.mjs'
import { line, parts, scripted, verdict, watcher } from './lib.mjs'

const sdk = await line()
const c = chunks(sdk)
const A = { id: 'call_A', tool: 'deleteFile', input: { path: '/a' } }
const { connection } = scripted([
  (run) => [c.runStarted(run), ...c.call(A.id, A.tool, A.input), ...c.finishWithApprovals(run, [A])],
  (run) => [c.runStarted(run), ...c.call(A.id, A.tool, A.input), ...c.result(A.id, A.tool, { deleted: '/a' }), ...c.text('m2', 'Deleted a.'), c.finish(run)],
])
const w = watcher()
const client = await makeClient(sdk, connection, w.options)
w.attach(client)
await client.sendMessage('delete a')
await w.until((ms) => parts(ms, A.id).some((p) => p.state === 'approval-requested'))
await client.addToolApprovalResponse({ id: `approval_${A.id}`, approved: true })
await w.idle()
const ms = client.getMessages()
const found = ms.flatMap((m) => m.parts.filter((p) => p.type === 'tool-call' && p.id === A.id).map((p) => `${m.id}: ${p.state}${p.output !== undefined ? ' (output)' : ''}`))
console.log('call_A parts:', JSON.stringify(found))
verdict(found.length > 1, `the client holds ${A.id} in ${found.length} part(s)`)
