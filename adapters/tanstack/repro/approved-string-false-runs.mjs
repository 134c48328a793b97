// ERR-01: an approval whose "approved" is the string "false" (malformed)
// reaches chat() on the call's part. chat() must refuse it, or at least not
// read it as a yes; it must not run the tool.
//
//   node repro/approved-string-false-runs.mjs versions/ai-client-0.33.2
import { line, verdict } from './lib.mjs'
import { textAdapter } from './model.mjs'

const sdk = await line()
const { chat, toolDefinition } = sdk.ai
const ran = []
const deleteFile = toolDefinition({ name: 'deleteFile', description: 'deletes a file', needsApproval: true }).server(async (args) => {
  ran.push(args)
  return { deleted: args.path }
})
const messages = [
  { id: 'u1', role: 'user', parts: [{ type: 'text', content: 'delete /a' }] },
  {
    id: 'a1',
    role: 'assistant',
    parts: [
      {
        type: 'tool-call',
        id: 'del',
        name: 'deleteFile',
        arguments: '{"path":"/a"}',
        state: 'approval-responded',
        approval: { id: 'approval_del', needsApproval: true, approved: 'false' },
      },
    ],
  },
]
let error
try {
  for await (const chunk of chat({ adapter: textAdapter(sdk, 'Done.'), messages, tools: [deleteFile] })) {
    if (process.env.ACK_TANSTACK_TRACE) console.log(JSON.stringify(chunk))
    if (chunk.type === "RUN_ERROR") error = chunk
  }
} catch (err) {
  error = err
}
console.log(`ran: ${JSON.stringify(ran)}; error: ${error ? error.message ?? JSON.stringify(error) : 'none'}`)
verdict(ran.length > 0, ran.length > 0 ? 'the string "false" was read as an approval: deleteFile ran' : 'the tool did not run')
