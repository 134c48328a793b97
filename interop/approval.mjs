// Runs a whole tool-approval conversation through the Vercel AI SDK against
// the kit's simulator, in one provider format: the model calls two tools
// that need approval, the user approves one and denies the other, and the
// SDK sends the continuation. The simulator's script checks the
// continuation's prompt; this prints what the SDK saw, as JSON. The Go test
// simulator/simhttp/interop_approval_test.go runs it for every format, in
// generate and stream mode.
//
// Usage: node approval.mjs CASES_JSON
// CASES_JSON: [{"format": "openai-chat"|"openai-responses"|
// "anthropic-messages", "baseURL": "...", "stream": bool}]
import { createOpenAI } from "@ai-sdk/openai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { generateText, streamText, jsonSchema, tool } from "ai";

const schema = {
  type: "object",
  properties: { path: { type: "string" } },
  required: ["path"],
};

function modelFor(format, baseURL) {
  if (format === "anthropic-messages") {
    return createAnthropic({ baseURL, apiKey: "sk-ant-ack" })("ack-simulated");
  }
  const provider = createOpenAI({ baseURL, apiKey: "sk-ack" });
  return format === "openai-responses" ? provider.responses("ack-simulated") : provider.chat("ack-simulated");
}

// step runs one turn and returns its content and response messages.
async function step(c, executed, messages) {
  const args = {
    model: modelFor(c.format, c.baseURL),
    messages,
    maxRetries: 0,
    tools: {
      deleteFile: tool({
        description: "Deletes a file.",
        inputSchema: jsonSchema(schema),
        needsApproval: true,
        execute: async ({ path }) => {
          executed.push(path);
          return { deleted: path };
        },
      }),
    },
  };
  if (!c.stream) {
    const r = await generateText(args);
    return { content: r.content, responseMessages: r.responseMessages, finishReason: r.finishReason, text: r.text };
  }
  let failure;
  const r = streamText({ ...args, onError: ({ error }) => { failure = error; } });
  try {
    const text = await r.text;
    const content = await r.content;
    const finishReason = await r.finishReason;
    const responseMessages = await r.responseMessages;
    if (failure) throw failure;
    return { content, responseMessages, finishReason, text };
  } catch (e) {
    throw failure ?? e; // the stream's own error says more than "no output"
  }
}

async function conversation(c) {
  const executed = [];
  const messages = [{ role: "user", content: "delete a and b" }];
  const first = await step(c, executed, messages);
  const requests = first.content.filter((p) => p.type === "tool-approval-request");
  messages.push(...first.responseMessages);
  messages.push({
    role: "tool",
    content: requests.map((r) => ({
      type: "tool-approval-response",
      approvalId: r.approvalId,
      approved: r.toolCall.input.path === "/a",
      ...(r.toolCall.input.path === "/a" ? {} : { reason: "keep b" }),
    })),
  });
  const second = await step(c, executed, messages);
  return {
    first: {
      text: first.text,
      finishReason: first.finishReason,
      approvals: requests.map((r) => ({ toolCallId: r.toolCall.toolCallId, toolName: r.toolCall.toolName, input: r.toolCall.input })),
    },
    second: { text: second.text, finishReason: second.finishReason },
    executed,
  };
}

const cases = JSON.parse(process.argv[2]);
const out = [];
for (const c of cases) {
  try {
    out.push({ ...c, result: await conversation(c) });
  } catch (e) {
    out.push({ ...c, error: String(e && e.stack ? e.stack : e) + (e && e.responseBody ? "\nresponse body: " + e.responseBody : "") });
  }
}
process.stdout.write(JSON.stringify(out) + "\n");
