// PRE-02 / DEN-01 / PART-01: the user approves call A and denies call B.
// The model gets a result for both; the stream chat() returns (what a
// client receives) should report both outcomes.
//
// The request is built as TanStack's own client sends it and read with the
// SDK's own parser: uiMessagesToWire, then chatParamsFromRequestBody, with
// resume entries from @tanstack/ai 0.44.
//
//   node repro/denial-not-streamed.mjs versions/ai-client-0.33.2
import { compare } from '../src/sdk.mjs'
import { line, verdict } from './lib.mjs'
import { textAdapter } from './model.mjs'

const sdk = await line()
const { chat, toolDefinition, uiMessagesToWire, chatParamsFromRequestBody } = sdk.ai
const ran = []
const deleteFile = toolDefinition({ name: 'deleteFile', description: 'deletes a file', inputSchema: { type: 'object' }, needsApproval: true }).server(async (args) => {
  ran.push(args.path)
  return { deleted: args.path }
})
const part = (id, path, approved) => ({
  type: 'tool-call',
  id,
  name: 'deleteFile',
  arguments: JSON.stringify({ path }),
  state: 'approval-responded',
  approval: { id: `approval_${id}`, needsApproval: true, approved },
})
const messages = [
  { id: 'u1', role: 'user', parts: [{ type: 'text', content: 'delete /a and /b' }] },
  { id: 'a1', role: 'assistant', parts: [part('A', '/a', true), part('B', '/b', false)] },
]
const body = { threadId: 't', runId: 'run-2', state: {}, messages: uiMessagesToWire(messages), tools: [], context: [], forwardedProps: {} }
if (compare(sdk.versions.ai, '0.44.0') >= 0) {
  body.parentRunId = 'run-1'
  body.resume = [
    { interruptId: 'approval_A', status: 'resolved', payload: { approved: true } },
    { interruptId: 'approval_B', status: 'resolved', payload: { approved: false } },
  ]
}
const params = await chatParamsFromRequestBody(body)
const model = textAdapter(sdk, 'Deleted /a; kept /b.')
const streamed = []
for await (const chunk of chat({ ...params, adapter: model, tools: [deleteFile] })) {
  if (chunk.type === 'TOOL_CALL_RESULT' || (chunk.type === 'TOOL_CALL_END' && chunk.result !== undefined)) {
    streamed.push(`${chunk.toolCallId}: ${chunk.content ?? chunk.result}`)
  }
}
const prompt = model.prompts[0].filter((m) => m.role === 'tool').map((m) => `${m.toolCallId}: ${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`)
console.log(`ran: ${JSON.stringify(ran)}`)
console.log(`the model's prompt holds: ${JSON.stringify(prompt)}`)
console.log(`the stream reports: ${JSON.stringify(streamed)}`)
const reportsB = streamed.some((s) => s.startsWith('B:'))
verdict(!reportsB, reportsB ? "the stream reports B's denial" : "the model gets a result for B, the stream reports none: a client never learns B's outcome")
