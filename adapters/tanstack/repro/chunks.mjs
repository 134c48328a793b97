// Server chunks in the shape each line's own server writes them (read from
// @tanstack/ai's chat activity of 0.5.1, 0.42.0 and 0.58.0).
import { compare } from '../src/sdk.mjs'

export function dialect(sdk) {
  if (compare(sdk.versions.ai, '0.44.0') >= 0) return 'interrupts'
  if (compare(sdk.versions.ai, '0.13.0') >= 0) return 'value'
  return 'data'
}

export function chunks(sdk) {
  const d = dialect(sdk)
  const name = (tool) => (d === 'data' ? { toolName: tool } : { toolCallName: tool, toolName: tool })
  const ts = () => Date.now()
  return {
    runStarted: (runId = 'run-x', threadId = 't') => ({ type: 'RUN_STARTED', timestamp: ts(), runId, threadId }),
    text: (messageId, delta) => [
      { type: 'TEXT_MESSAGE_START', timestamp: ts(), messageId, role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', timestamp: ts(), messageId, delta },
      { type: 'TEXT_MESSAGE_END', timestamp: ts(), messageId },
    ],
    call: (id, tool, input) => [
      { type: 'TOOL_CALL_START', timestamp: ts(), toolCallId: id, ...name(tool) },
      { type: 'TOOL_CALL_ARGS', timestamp: ts(), toolCallId: id, delta: JSON.stringify(input) },
      { type: 'TOOL_CALL_END', timestamp: ts(), toolCallId: id, ...name(tool), input },
    ],
    /** result: how the line's server delivers a call's output. */
    result: (id, tool, output) =>
      d === 'data'
        ? [{ type: 'TOOL_CALL_END', timestamp: ts(), toolCallId: id, toolName: tool, result: JSON.stringify(output) }]
        : [{ type: 'TOOL_CALL_RESULT', timestamp: ts(), messageId: `tool-${id}`, toolCallId: id, role: 'tool', content: JSON.stringify(output) }],
    /**
     * finishWithApprovals ends a run whose calls wait for approval: a
     * RUN_FINISHED, then CUSTOM approval-requested events (legacy lines),
     * or a RUN_FINISHED whose outcome holds bound approval interrupts.
     */
    finishWithApprovals: (runId, calls) => {
      if (d !== 'interrupts') {
        const payload = (c) => ({ toolCallId: c.id, toolName: c.tool, input: c.input, approval: { id: `approval_${c.id}`, needsApproval: true } })
        return [
          { type: 'RUN_FINISHED', timestamp: ts(), runId, finishReason: 'tool_calls' },
          ...calls.map((c) => ({ type: 'CUSTOM', timestamp: ts(), name: 'approval-requested', [d]: payload(c) })),
        ]
      }
      const { normalizeApprovalSchema, hashSchemaInput } = sdk.ai
      const n = normalizeApprovalSchema(undefined, undefined)
      return [
        {
          type: 'RUN_FINISHED',
          timestamp: ts(),
          runId,
          threadId: 't',
          finishReason: 'tool_calls',
          outcome: {
            type: 'interrupt',
            interrupts: calls.map((c) => ({
              id: `approval_${c.id}`,
              reason: 'tool_call',
              message: `Approval required to run ${c.tool}`,
              toolCallId: c.id,
              responseSchema: n.responseSchema,
              metadata: {
                kind: 'approval',
                toolName: c.tool,
                input: c.input,
                'tanstack:interruptBinding': {
                  v: 1,
                  kind: 'tool-approval',
                  interruptId: `approval_${c.id}`,
                  toolName: c.tool,
                  toolCallId: c.id,
                  originalArgs: c.input,
                  inputSchemaHash: hashSchemaInput(undefined),
                  approvalSchemaHash: n.approvalSchemaHash,
                  responseSchemaHash: n.responseSchemaHash,
                  interruptedRunId: runId,
                  generation: 0,
                },
              },
            })),
          },
        },
      ]
    },
    finish: (runId, reason = 'stop') => ({ type: 'RUN_FINISHED', timestamp: ts(), runId, threadId: 't', finishReason: reason }),
  }
}

/** client makes a ChatClient of the line with a tool that needs approval. */
export async function client(sdk, connection, extra = {}) {
  const { ChatClient } = sdk.client
  const tool = sdk.ai.toolDefinition({ name: 'deleteFile', description: 'deletes a file', needsApproval: true }).client()
  return new ChatClient({ connection, tools: [tool], ...extra })
}
