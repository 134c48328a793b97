// CHAIN-02 (seed 002): the user approves call B while the continuation
// stream that asked for it is still open. When that stream ends, the client
// must send a third request carrying B's approval.
//
//   node repro/chained-approval-swallowed.mjs versions/ai-client-0.4.5
import { chunks, client as makeClient } from './chunks.mjs'
import { gate, line, parts, scripted, verdict, watcher } from './lib.mjs'

const sdk = await line()
const c = chunks(sdk)
const hold = gate()
const A = { id: 'call_A', tool: 'deleteFile', input: { path: '/a' } }
const B = { id: 'call_B', tool: 'deleteFile', input: { path: '/b' } }
const { requests, connection } = scripted([
  // 1: call A, waiting for approval.
  (run) => [c.runStarted(run), ...c.call(A.id, A.tool, A.input), ...c.finishWithApprovals(run, [A])],
  // 2: A's result, then call B waiting for approval; the response stays
  //    open after its last chunk until the script opens the gate.
  (run) => [c.runStarted(run), ...c.result(A.id, A.tool, { deleted: '/a' }), ...c.call(B.id, B.tool, B.input), ...c.finishWithApprovals(run, [B]), () => hold.wait()],
  // 3: the text that ends the turn.
  (run) => [c.runStarted(run), ...c.text('m3', 'Deleted a and b.'), c.finish(run)],
])
const w = watcher()
const client = await makeClient(sdk, connection, w.options)
w.attach(client)
const approvalShown = (id) => (ms) => parts(ms, id).some((p) => p.state === 'approval-requested')

await client.sendMessage('delete a, then b')
await w.until(approvalShown(A.id))
// The legacy clients' promise settles only when the continuation (held
// below) and whatever it queued are done; so it is awaited at the end.
const afterA = client.addToolApprovalResponse({ id: `approval_${A.id}`, approved: true })
await w.until(approvalShown(B.id))
console.log(`B asks for approval while request 2's stream is open (isLoading=${client.getIsLoading()}); approving B`)
await client.addToolApprovalResponse({ id: `approval_${B.id}`, approved: true })
hold.open()
await afterA
await w.idle()
console.log(`requests made: ${requests.length} (want 3)`)
verdict(requests.length !== 3, requests.length === 2 ? "B's approval was swallowed: no request carries it" : `${requests.length} requests`)
