// Runs tool-approval conversations through the official provider clients
// (openai, @anthropic-ai/sdk) against the kit's simulator, with the request
// features applications send by default or commonly set: developer and
// system prompts as the SDKs shape them (instructions, system blocks with
// cache_control), image parts, tool options, stored Responses chained by
// previous_response_id or replayed by hand, hosted MCP tools with their
// approvals, thinking and caching options. The application plays the
// approval: it runs the approved call and answers the denied one with a
// denial text. The simulator's script checks every continuation; this
// prints what happened, as JSON. The Go test
// simulator/simhttp/interop_conversations_test.go runs it.
//
// Usage: node conversations.mjs CASES_JSON
// CASES_JSON: [{"case": "openai-chat"|"openai-responses-chained"|
// "openai-responses-replayed"|"anthropic-messages", "baseURL": "...",
// "stream": bool}]
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";

const schema = {
  type: "object",
  properties: { path: { type: "string" } },
  required: ["path"],
};
// A 1x1 PNG, as applications attach images.
const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

// decide is the user's answer: /a is approved, anything else denied.
const approved = (input) => input.path === "/a";
const denial = "Denied by the user: keep b";

async function openaiChat(c) {
  const client = new OpenAI({ baseURL: c.baseURL, apiKey: "sk-ack", maxRetries: 0 });
  const messages = [
    { role: "developer", content: "You manage files." },
    {
      role: "user",
      content: [
        { type: "text", text: "delete a and b" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${png}`, detail: "low" } },
      ],
    },
  ];
  const params = {
    model: "ack-simulated",
    tools: [
      { type: "function", function: { name: "deleteFile", description: "Deletes a file.", parameters: schema, strict: false } },
      { type: "custom", custom: { name: "shell", description: "Runs a shell command." } },
    ],
    tool_choice: "auto",
    parallel_tool_calls: true,
    store: true,
    metadata: { app: "ack-interop" },
    max_completion_tokens: 512,
    temperature: 0.2,
    seed: 7,
    service_tier: "auto",
    prompt_cache_key: "ack",
    safety_identifier: "user-1",
  };
  const call = async () => {
    if (!c.stream) return (await client.chat.completions.create({ ...params, messages })).choices[0].message;
    const s = client.chat.completions.stream({ ...params, messages, stream_options: { include_usage: true } });
    return (await s.finalChatCompletion()).choices[0].message;
  };
  const first = await call();
  messages.push(first); // as the client returned it
  const executed = [];
  for (const tc of first.tool_calls ?? []) {
    const input = JSON.parse(tc.function.arguments);
    if (approved(input)) {
      executed.push(input.path);
      messages.push({ role: "tool", tool_call_id: tc.id, content: JSON.stringify({ deleted: input.path }) });
    } else {
      messages.push({ role: "tool", tool_call_id: tc.id, content: [{ type: "text", text: denial }] });
    }
  }
  const second = await call();
  return { approvals: (first.tool_calls ?? []).map((tc) => tc.id), executed, text: second.content ?? "" };
}

const mcpTool = { type: "mcp", server_label: "docs", server_url: "https://mcp.example.invalid/sse", require_approval: "always" };

// answers runs the approved function calls and answers the others with a
// denial text (one as a text part list, as tools returning content do);
// it approves every MCP call.
function answers(output, executed) {
  const items = [];
  for (const o of output) {
    if (o.type === "function_call") {
      const input = JSON.parse(o.arguments);
      if (approved(input)) {
        executed.push(input.path);
        items.push({ type: "function_call_output", call_id: o.call_id, output: JSON.stringify({ deleted: input.path }) });
      } else {
        items.push({ type: "function_call_output", call_id: o.call_id, output: [{ type: "input_text", text: denial }] });
      }
    } else if (o.type === "mcp_approval_request") {
      items.push({ type: "mcp_approval_response", approval_request_id: o.id, approve: true });
    }
  }
  return items;
}

async function openaiResponses(c, chained) {
  const client = new OpenAI({ baseURL: c.baseURL, apiKey: "sk-ack", maxRetries: 0 });
  const params = {
    model: "ack-simulated",
    instructions: "You manage files.",
    tools: [{ type: "function", name: "deleteFile", description: "Deletes a file.", parameters: schema, strict: false }, mcpTool],
    tool_choice: "auto",
    parallel_tool_calls: true,
    store: chained,
    include: chained ? [] : ["reasoning.encrypted_content"],
    metadata: { app: "ack-interop" },
    max_output_tokens: 512,
    text: { verbosity: "low" },
    truncation: "auto",
    service_tier: "auto",
    prompt_cache_key: "ack",
    safety_identifier: "user-1",
  };
  const call = async (extra) => {
    if (!c.stream) return client.responses.create({ ...params, ...extra });
    return client.responses.stream({ ...params, ...extra }).finalResponse();
  };
  const input = [
    {
      role: "user",
      content: [
        { type: "input_text", text: "delete a and b" },
        { type: "input_image", image_url: `data:image/png;base64,${png}`, detail: "low" },
      ],
    },
  ];
  const first = await call({ input });
  const executed = [];
  const replies = answers(first.output, executed);
  const second = chained
    ? await call({ previous_response_id: first.id, input: replies })
    : await call({ input: [...input, ...first.output, ...replies] });
  return {
    approvals: first.output.filter((o) => o.type === "function_call" || o.type === "mcp_approval_request").map((o) => o.call_id ?? o.id),
    executed,
    text: second.output_text ?? "",
  };
}

async function anthropic(c) {
  const client = new Anthropic({ baseURL: c.baseURL.replace(/\/v1$/, ""), apiKey: "sk-ant-ack", maxRetries: 0 });
  const messages = [
    {
      role: "user",
      content: [
        { type: "text", text: "delete a and b" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: png } },
      ],
    },
  ];
  const params = {
    model: "ack-simulated",
    max_tokens: 2048,
    system: [{ type: "text", text: "You manage files.", cache_control: { type: "ephemeral" } }],
    tools: [
      { type: "web_search_20250305", name: "web_search", max_uses: 1 },
      { name: "deleteFile", description: "Deletes a file.", input_schema: schema, cache_control: { type: "ephemeral" } },
    ],
    tool_choice: { type: "auto", disable_parallel_tool_use: false },
    thinking: { type: "enabled", budget_tokens: 1024 },
    metadata: { user_id: "user-1" },
    stop_sequences: ["END"],
    service_tier: "auto",
  };
  const call = async () => (c.stream ? client.messages.stream({ ...params, messages }).finalMessage() : client.messages.create({ ...params, messages }));
  const first = await call();
  messages.push({ role: "assistant", content: first.content }); // as the client returned it
  const executed = [];
  const results = [];
  for (const b of first.content.filter((b) => b.type === "tool_use")) {
    if (approved(b.input)) {
      executed.push(b.input.path);
      results.push({ type: "tool_result", tool_use_id: b.id, content: JSON.stringify({ deleted: b.input.path }) });
    } else {
      results.push({ type: "tool_result", tool_use_id: b.id, is_error: true, content: [{ type: "text", text: denial }] });
    }
  }
  results.push({ type: "text", text: "go on", cache_control: { type: "ephemeral" } });
  messages.push({ role: "user", content: results });
  const second = await call();
  return {
    approvals: first.content.filter((b) => b.type === "tool_use").map((b) => b.id),
    executed,
    text: second.content.filter((b) => b.type === "text").map((b) => b.text).join(""),
  };
}

async function runCase(c) {
  switch (c.case) {
    case "openai-chat":
      return openaiChat(c);
    case "openai-responses-chained":
      return openaiResponses(c, true);
    case "openai-responses-replayed":
      return openaiResponses(c, false);
    case "anthropic-messages":
      return anthropic(c);
  }
  throw new Error(`unknown case ${c.case}`);
}

const cases = JSON.parse(process.argv[2]);
const out = [];
for (const c of cases) {
  try {
    out.push({ ...c, result: await runCase(c) });
  } catch (e) {
    const body = e && e.error ? "\nresponse body: " + JSON.stringify(e.error) : "";
    out.push({ ...c, error: String(e && e.stack ? e.stack : e) + body });
  }
}
process.stdout.write(JSON.stringify(out) + "\n");
