// CHAIN-04: call A was asked for approval in request 1 and approved; the
// continuation (request 2) delivers A's result. A's part must reach a
// terminal state (an output); it must not stay approval-responded.
//
//   node repro/result-of-earlier-call-dropped.mjs versions/ai-client-0.22.1
import { chunks, client as makeClient } from './chunks.mjs'
import { line, parts, scripted, verdict, watcher } from './lib.mjs'

const sdk = await line()
const c = chunks(sdk)
const A = { id: 'call_A', tool: 'deleteFile', input: { path: '/a' } }
const { connection } = scripted([
  (run) => [c.runStarted(run), ...c.call(A.id, A.tool, A.input), ...c.finishWithApprovals(run, [A])],
  (run) => [c.runStarted(run), ...c.result(A.id, A.tool, { deleted: '/a' }), ...c.text('m2', 'Deleted a.'), c.finish(run)],
])
const w = watcher()
const client = await makeClient(sdk, connection, w.options)
w.attach(client)
await client.sendMessage('delete a')
await w.until((ms) => parts(ms, A.id).some((p) => p.state === 'approval-requested'))
const done = client.addToolApprovalResponse({ id: `approval_${A.id}`, approved: true })
await done
await w.idle()
const ms = client.getMessages()
const [part] = parts(ms, A.id)
const results = ms.flatMap((m) => m.parts).filter((p) => p.type === 'tool-result' && p.toolCallId === A.id)
console.log('call_A part:', JSON.stringify(part), 'tool-result parts:', results.length)
verdict(part.output === undefined && results.length === 0, part.output === undefined && results.length === 0 ? `the result of ${A.id} was dropped: its part stays ${part.state}` : 'the result reached the part')
