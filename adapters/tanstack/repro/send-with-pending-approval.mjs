// CHAIN-05: while call A waits for approval, the user sends a new message.
// The client must refuse it, or send it with A answered; it must not send
// A unanswered before the new user message (a dangling call).
//
//   node repro/send-with-pending-approval.mjs versions/ai-client-0.22.1
import { chunks, client as makeClient } from './chunks.mjs'
import { line, parts, scripted, verdict, watcher } from './lib.mjs'

const sdk = await line()
const c = chunks(sdk)
const A = { id: 'call_A', tool: 'deleteFile', input: { path: '/a' } }
const { requests, connection } = scripted([
  (run) => [c.runStarted(run), ...c.call(A.id, A.tool, A.input), ...c.finishWithApprovals(run, [A])],
  (run) => [c.runStarted(run), ...c.text('m2', 'All right.'), c.finish(run)],
])
const w = watcher()
const client = await makeClient(sdk, connection, w.options)
w.attach(client)
await client.sendMessage('delete a')
await w.until((ms) => parts(ms, A.id).some((p) => p.state === 'approval-requested'))
let refused
try {
  await client.sendMessage('actually, never mind')
} catch (err) {
  refused = err
}
await w.idle()
if (refused) verdict(false, `the send was refused: ${refused.message}`)
if (requests.length === 1) verdict(true, 'the message was neither sent nor refused (dropped silently)')
const sent = requests[1].messages
const lastUser = sent.findLastIndex((m) => m.role === 'user')
const dangling = sent.slice(0, lastUser).flatMap((m) => m.parts ?? []).filter((p) => p.type === 'tool-call' && p.approval && p.approval.approved === undefined && p.output === undefined)
console.log('request 2 messages:', JSON.stringify(sent.map((m) => ({ role: m.role, parts: (m.parts ?? []).map((p) => p.type === 'tool-call' ? `${p.id}:${p.state}` : p.type) }))))
verdict(dangling.length > 0, dangling.length > 0 ? `request 2 sends ${dangling.map((p) => p.id)} unanswered before the new user message` : 'answered')
