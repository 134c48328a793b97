// REQ-01 over the OpenAI Responses API: a function_call item has its own
// id ("fc_…") and the call's id (call_id); a function_call_output answers
// the call_id. The adapter must name the call by its call_id.
//
// A loopback endpoint streams one Responses function_call (the events of
// OpenAI's Responses streaming reference); @tanstack/ai-openai's
// Responses adapter (createOpenaiChat) reads it through the official
// openai client.
//
//   node repro/responses-call-id.mjs versions/ai-client-0.22.1
import http from 'node:http'
import { line, verdict } from './lib.mjs'

const sdk = await line()
const item = { type: 'function_call', id: 'fc_123', call_id: 'call_abc', name: 'deleteFile', arguments: '' }
const events = [
  { type: 'response.created', sequence_number: 0, response: { id: 'resp_1', object: 'response', status: 'in_progress', output: [] } },
  { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item },
  { type: 'response.function_call_arguments.delta', sequence_number: 2, output_index: 0, item_id: 'fc_123', delta: '{"path":"/a"}' },
  { type: 'response.function_call_arguments.done', sequence_number: 3, output_index: 0, item_id: 'fc_123', arguments: '{"path":"/a"}' },
  { type: 'response.output_item.done', sequence_number: 4, output_index: 0, item: { ...item, arguments: '{"path":"/a"}', status: 'completed' } },
  { type: 'response.completed', sequence_number: 5, response: { id: 'resp_1', object: 'response', status: 'completed', output: [{ ...item, arguments: '{"path":"/a"}', status: 'completed' }], usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 } } },
]
const server = http.createServer((req, res) => {
  req.resume()
  req.on('end', () => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream' })
    for (const e of events) res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`)
    res.end()
  })
})
await new Promise((r) => server.listen(0, '127.0.0.1', r))
const baseURL = `http://127.0.0.1:${server.address().port}/v1`
const adapter = sdk.openai.createOpenaiChat('gpt-4o', 'key', { baseURL, maxRetries: 0 })
const tool = sdk.ai.toolDefinition({ name: 'deleteFile', description: 'deletes a file', inputSchema: { type: 'object' }, needsApproval: true }).server(async () => ({}))
const ids = new Set()
for await (const chunk of sdk.ai.chat({ adapter, messages: [{ role: 'user', content: 'delete /a' }], tools: [tool] })) {
  if (chunk.type === 'TOOL_CALL_START') ids.add(chunk.toolCallId)
}
server.close()
console.log(`the call's id as TanStack reports it: ${JSON.stringify([...ids])} (call_id: call_abc, item id: fc_123)`)
verdict(!ids.has('call_abc'), ids.has('call_abc') ? 'named by its call_id' : 'the call is named by its item id, which no function_call_output can answer')
