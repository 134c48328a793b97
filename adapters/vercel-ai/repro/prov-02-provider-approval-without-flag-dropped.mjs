// PROV-02: a provider approval answered without the providerExecuted flag
// is still forwarded, or refused with a clear error; never silently dropped.
//
// OpenAI's Responses API asked approval for a hosted MCP call (mcpr_1). The
// answer comes back without providerExecuted: true. generateText neither
// forwards it (no mcp_approval_response in the request) nor fails: the
// approval is lost without a word.
import { createOpenAI } from "@ai-sdk/openai";
import { generateText } from "ai";

const inputs = [];
const fetch = async (_url, init) => {
  inputs.push(JSON.parse(init.body).input);
  return Response.json({
    id: "resp_2", object: "response", created_at: 0, status: "completed", model: "m",
    output: [{ type: "message", id: "msg_2", role: "assistant", status: "completed", content: [{ type: "output_text", text: "It is sunny.", annotations: [] }] }],
    usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 },
  });
};
let error;
try {
  await generateText({
    model: createOpenAI({ apiKey: "k", fetch }).responses("m"),
    maxRetries: 0,
    messages: [
      { role: "user", content: "search the weather" },
      { role: "assistant", content: [
        { type: "tool-call", toolCallId: "mcp_call_1", toolName: "mcp.web_search", input: { q: "weather" }, providerExecuted: true },
        { type: "tool-approval-request", approvalId: "mcpr_1", toolCallId: "mcp_call_1" },
      ] },
      { role: "tool", content: [{ type: "tool-approval-response", approvalId: "mcpr_1", approved: true }] },
    ],
  });
} catch (e) {
  error = e;
}
const forwarded = inputs.some((input) => input.some((i) => i.type === "mcp_approval_response" && i.approval_request_id === "mcpr_1"));
console.log(`forwarded: ${forwarded}; error: ${error ? error.message : "none"}; the request's input: ${JSON.stringify(inputs[0])}`);
process.exit(forwarded || error ? 0 : 1);
