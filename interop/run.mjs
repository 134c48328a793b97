// Runs official provider SDK clients against the kit's simulator and prints
// what each parsed, as JSON: the Go test simulator/simhttp/interop_test.go
// starts the simulator, runs this, and checks every case.
//
// Usage: node run.mjs CASES_JSON
// CASES_JSON: [{"client": "openai"|"anthropic"|"ai-sdk", "format":
// "openai-chat"|"openai-responses"|"anthropic-messages", "baseURL": "...",
// "stream": bool}]
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";
import { createOpenAI } from "@ai-sdk/openai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { generateText, streamText, jsonSchema, tool } from "ai";

const schema = {
  type: "object",
  properties: { path: { type: "string" } },
  required: ["path"],
};

async function openaiChat(baseURL, stream) {
  const client = new OpenAI({ baseURL, apiKey: "sk-ack" });
  const params = {
    model: "ack-simulated",
    messages: [{ role: "user", content: "delete a and b" }],
    tools: [{ type: "function", function: { name: "deleteFile", parameters: schema } }],
  };
  if (!stream) {
    const r = await client.chat.completions.create(params);
    const m = r.choices[0].message;
    return {
      text: m.content ?? "",
      toolCalls: (m.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function.name, input: JSON.parse(c.function.arguments) })),
      finishReason: r.choices[0].finish_reason,
      usage: { input: r.usage.prompt_tokens, output: r.usage.completion_tokens },
    };
  }
  const s = client.chat.completions.stream({ ...params, stream_options: { include_usage: true } });
  const r = await s.finalChatCompletion();
  const m = r.choices[0].message;
  return {
    text: m.content ?? "",
    toolCalls: (m.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function.name, input: JSON.parse(c.function.arguments) })),
    finishReason: r.choices[0].finish_reason,
    usage: r.usage ? { input: r.usage.prompt_tokens, output: r.usage.completion_tokens } : null,
  };
}

async function openaiResponses(baseURL, stream) {
  const client = new OpenAI({ baseURL, apiKey: "sk-ack" });
  const params = {
    model: "ack-simulated",
    input: "delete a and b",
    tools: [{ type: "function", name: "deleteFile", parameters: schema, strict: false }],
  };
  let r;
  if (!stream) {
    r = await client.responses.create(params);
  } else {
    const s = client.responses.stream(params);
    r = await s.finalResponse();
  }
  return {
    text: r.output_text ?? "",
    toolCalls: r.output.filter((o) => o.type === "function_call").map((c) => ({ id: c.call_id, name: c.name, input: JSON.parse(c.arguments) })),
    finishReason: r.status,
    usage: r.usage ? { input: r.usage.input_tokens, output: r.usage.output_tokens } : null,
  };
}

async function anthropic(baseURL, stream) {
  // The SDK adds /v1/messages to its base.
  const client = new Anthropic({ baseURL: baseURL.replace(/\/v1$/, ""), apiKey: "sk-ant-ack" });
  const params = {
    model: "ack-simulated",
    max_tokens: 1024,
    messages: [{ role: "user", content: "delete a and b" }],
    tools: [{ name: "deleteFile", input_schema: schema }],
  };
  const r = stream ? await client.messages.stream(params).finalMessage() : await client.messages.create(params);
  return {
    text: r.content.filter((b) => b.type === "text").map((b) => b.text).join(""),
    toolCalls: r.content.filter((b) => b.type === "tool_use").map((b) => ({ id: b.id, name: b.name, input: b.input })),
    finishReason: r.stop_reason,
    usage: { input: r.usage.input_tokens, output: r.usage.output_tokens },
  };
}

async function aiSDK(format, baseURL, stream) {
  let model;
  if (format === "anthropic-messages") {
    model = createAnthropic({ baseURL, apiKey: "sk-ant-ack" })("ack-simulated");
  } else {
    const provider = createOpenAI({ baseURL, apiKey: "sk-ack" });
    model = format === "openai-responses" ? provider.responses("ack-simulated") : provider.chat("ack-simulated");
  }
  const args = {
    model,
    prompt: "delete a and b",
    tools: { deleteFile: tool({ description: "Deletes a file.", inputSchema: jsonSchema(schema) }) },
  };
  let text, toolCalls, finishReason, usage;
  if (!stream) {
    const r = await generateText(args);
    ({ text, toolCalls, finishReason, usage } = r);
  } else {
    const r = streamText({ ...args, onError: ({ error }) => { throw error; } });
    text = await r.text;
    toolCalls = await r.toolCalls;
    finishReason = await r.finishReason;
    usage = await r.usage;
  }
  return {
    text,
    toolCalls: toolCalls.map((c) => ({ id: c.toolCallId, name: c.toolName, input: c.input })),
    finishReason,
    usage: { input: usage.inputTokens, output: usage.outputTokens },
  };
}

// violation sends a prompt with a tool call left without a result and
// returns the error the client raised.
async function violation(c) {
  try {
    if (c.format === "anthropic-messages") {
      const client = new Anthropic({ baseURL: c.baseURL.replace(/\/v1$/, ""), apiKey: "sk-ant-ack", maxRetries: 0 });
      await client.messages.create({
        model: "ack-simulated", max_tokens: 64,
        messages: [
          { role: "user", content: "delete a" },
          { role: "assistant", content: [{ type: "tool_use", id: "call_9", name: "deleteFile", input: {} }] },
          { role: "user", content: "and?" },
        ],
      });
    } else {
      const client = new OpenAI({ baseURL: c.baseURL, apiKey: "sk-ack", maxRetries: 0 });
      await client.chat.completions.create({
        model: "ack-simulated",
        messages: [
          { role: "user", content: "delete a" },
          { role: "assistant", content: null, tool_calls: [{ id: "call_9", type: "function", function: { name: "deleteFile", arguments: "{}" } }] },
          { role: "user", content: "and?" },
        ],
      });
    }
  } catch (e) {
    const message = e.error?.error?.message ?? e.error?.message ?? e.message;
    return { status: e.status, message };
  }
  throw new Error("the violation was accepted");
}

async function runCase(c) {
  if (c.kind === "violation") return violation(c);
  switch (c.client) {
    case "openai":
      return c.format === "openai-responses" ? openaiResponses(c.baseURL, c.stream) : openaiChat(c.baseURL, c.stream);
    case "anthropic":
      return anthropic(c.baseURL, c.stream);
    case "ai-sdk":
      return aiSDK(c.format, c.baseURL, c.stream);
  }
  throw new Error(`unknown client ${c.client}`);
}

const cases = JSON.parse(process.argv[2]);
const out = [];
for (const c of cases) {
  try {
    out.push({ ...c, result: await runCase(c) });
  } catch (e) {
    out.push({ ...c, error: String(e && e.stack ? e.stack : e) });
  }
}
process.stdout.write(JSON.stringify(out) + "\n");
