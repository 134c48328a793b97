// A stand-in for OpenAI Chat Completions for the reproductions: it records
// every request body and answers each call with the next reply of a list
// (text, or tool calls), without a network.
export function chatCompletions(replies) {
  const bodies = [];
  const fetch = async (_url, init) => {
    const body = JSON.parse(init.body);
    bodies.push(body);
    const reply = replies[Math.min(bodies.length - 1, replies.length - 1)];
    const message = { role: "assistant", content: reply.text ?? null };
    if (reply.toolCalls) {
      message.tool_calls = reply.toolCalls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: JSON.stringify(c.input) } }));
    }
    return Response.json({
      id: `c${bodies.length}`, object: "chat.completion", created: 0, model: "m",
      choices: [{ index: 0, message, finish_reason: reply.toolCalls ? "tool_calls" : "stop" }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    });
  };
  return { fetch, bodies };
}
