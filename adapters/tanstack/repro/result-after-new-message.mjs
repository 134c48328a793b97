// WIRE-02: turn 1 left readFile (needs no approval) unrun beside deleteFile,
// which waits for approval (A2). The user then writes a new message instead
// of answering. The next model call must have readFile's result right after
// the assistant message of its call, never after the user's new text.
//
//   node repro/result-after-new-message.mjs versions/ai-client-0.22.1
import { line, verdict } from './lib.mjs'
import { textAdapter } from './model.mjs'

const sdk = await line()
const { chat, toolDefinition, uiMessagesToWire, chatParamsFromRequestBody } = sdk.ai
const ran = []
const tool = (name, needsApproval) =>
  toolDefinition({ name, description: name, inputSchema: { type: 'object' }, needsApproval }).server(async (args) => {
    ran.push(name)
    return { ok: true, args }
  })
const messages = [
  { id: 'u1', role: 'user', parts: [{ type: 'text', content: 'read /a, then delete it' }] },
  {
    id: 'a1',
    role: 'assistant',
    parts: [
      { type: 'tool-call', id: 'read', name: 'readFile', arguments: '{"path":"/a"}', state: 'input-complete' },
      { type: 'tool-call', id: 'del', name: 'deleteFile', arguments: '{"path":"/a"}', state: 'approval-requested', approval: { id: 'approval_del', needsApproval: true } },
    ],
  },
  { id: 'u2', role: 'user', parts: [{ type: 'text', content: 'actually, never mind' }] },
]
const body = { threadId: 't', runId: 'run-2', state: {}, messages: uiMessagesToWire(messages), tools: [], context: [], forwardedProps: {} }
const params = await chatParamsFromRequestBody(body)
const model = textAdapter(sdk, 'OK.')
for await (const chunk of chat({ ...params, adapter: model, tools: [tool('readFile', false), tool('deleteFile', true)] })) void chunk
const prompt = model.prompts[0] ?? []
const roles = prompt.map((m) => (m.role === 'tool' ? `tool(${m.toolCallId})` : m.toolCalls?.length ? `assistant(${m.toolCalls.map((c) => c.id)})` : m.role))
console.log(`ran: ${JSON.stringify(ran)}; model call 1's prompt: ${roles.join(' ')}`)
const callAt = prompt.findIndex((m) => m.toolCalls?.some((c) => c.id === 'read'))
const resultAt = prompt.findIndex((m) => m.role === 'tool' && m.toolCallId === 'read')
const defect = callAt >= 0 && resultAt !== callAt + 1
verdict(defect, defect ? `readFile's result is at message ${resultAt}, not right after its call (message ${callAt})` : "readFile's result follows its call")
