// Runs a whole tool-approval conversation through the Vercel AI SDK against
// the kit's simulator, in one provider format: the model calls two tools
// that need approval, the user approves one and denies the other, and the
// SDK sends the continuation. With mcp (Responses only), the model also asks
// to run a tool of a hosted MCP server that requires approval, which the
// user grants. The simulator's script checks the continuation's prompt;
// this prints what the SDK saw, as JSON. The Go test
// simulator/simhttp/interop_approval_test.go runs it for every format, in
// generate and stream mode, on AI SDK 7 and 6.
//
// Usage: node approval.mjs CASES_JSON
// CASES_JSON: [{"sdk": "ai7"|"ai6", "format": "openai-chat"|
// "openai-responses"|"anthropic-messages", "baseURL": "...",
// "stream": bool, "mcp": bool}]
import { createOpenAI } from "@ai-sdk/openai";
import { createAnthropic } from "@ai-sdk/anthropic";
import * as ai7 from "ai";
import { createOpenAI as createOpenAI6 } from "@ai-sdk/openai-v3";
import { createAnthropic as createAnthropic6 } from "@ai-sdk/anthropic-v3";
import * as ai6 from "ai-v6";

const sdks = {
  ai7: { ai: ai7, createOpenAI, createAnthropic },
  ai6: { ai: ai6, createOpenAI: createOpenAI6, createAnthropic: createAnthropic6 },
};

const schema = {
  type: "object",
  properties: { path: { type: "string" } },
  required: ["path"],
};

function providerFor(c) {
  const sdk = sdks[c.sdk ?? "ai7"];
  if (c.format === "anthropic-messages") return sdk.createAnthropic({ baseURL: c.baseURL, apiKey: "sk-ant-ack" });
  return sdk.createOpenAI({ baseURL: c.baseURL, apiKey: "sk-ack" });
}

function modelFor(c) {
  const provider = providerFor(c);
  if (c.format === "anthropic-messages") return provider("ack-simulated");
  return c.format === "openai-responses" ? provider.responses("ack-simulated") : provider.chat("ack-simulated");
}

// step runs one turn and returns its content and response messages.
async function step(c, executed, messages) {
  const { generateText, streamText, jsonSchema, tool } = sdks[c.sdk ?? "ai7"].ai;
  const args = {
    model: modelFor(c),
    messages,
    maxRetries: 0,
    tools: {
      ...(c.mcp && { docs: providerFor(c).tools.mcp({ serverLabel: "docs", serverUrl: "https://mcp.example.invalid/sse", requireApproval: "always" }) }),
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
    // ai 7 names them responseMessages; ai 6 has them in response.messages.
    return { content: r.content, responseMessages: r.responseMessages ?? r.response.messages, finishReason: r.finishReason, text: r.text };
  }
  let failure;
  const r = streamText({ ...args, onError: ({ error }) => { failure = error; } });
  try {
    const text = await r.text;
    const content = await r.content;
    const finishReason = await r.finishReason;
    const responseMessages = (await r.responseMessages) ?? (await r.response).messages;
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
    content: requests.map((r) => {
      const granted = r.toolCall.providerExecuted || r.toolCall.input.path === "/a"; // the MCP call is approved
      return {
        type: "tool-approval-response",
        approvalId: r.approvalId,
        approved: granted,
        ...(granted ? {} : { reason: "keep b" }),
        // As convertToModelMessages marks it: only these go to the model.
        ...(r.toolCall.providerExecuted && { providerExecuted: true }),
      };
    }),
  });
  const second = await step(c, executed, messages);
  return {
    first: {
      text: first.text,
      finishReason: first.finishReason,
      approvals: requests.map((r) => ({
        toolCallId: r.toolCall.providerExecuted ? r.approvalId : r.toolCall.toolCallId, // the SDK makes up a provider call's id
        toolName: r.toolCall.toolName,
        input: r.toolCall.input,
      })),
    },
    second: { text: second.text, finishReason: second.finishReason },
    executed,
  };
}

// The SDKs' warnings go with each case's result, not to stdout.
let warnings = [];
globalThis.AI_SDK_LOG_WARNINGS = (o) => warnings.push(...o.warnings.map((w) => w.message ?? w.details ?? w.feature ?? JSON.stringify(w)));

const cases = JSON.parse(process.argv[2]);
const out = [];
for (const c of cases) {
  warnings = [];
  try {
    out.push({ ...c, result: await conversation(c), warnings });
  } catch (e) {
    out.push({ ...c, warnings, error: String(e && e.stack ? e.stack : e) + (e && e.responseBody ? "\nresponse body: " + e.responseBody : "") });
  }
}
process.stdout.write(JSON.stringify(out) + "\n");
