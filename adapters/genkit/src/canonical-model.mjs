// A model of the application's own (ai.defineModel, apiVersion v2) that
// forwards each call of Genkit to the kit's canonical model API
// ({baseURL}/canonical): the messages Genkit hands its model, as canonical
// messages, nothing filtered or added. A toolResponse is a tool result
// (its output JSON, or text when it is a string: Genkit's results carry no
// type); a model message's toolRequests are tool calls.

import { callCanonical } from "../../driverkit/index.mjs";

function canonicalMessages(messages) {
  const out = [];
  for (const m of messages) {
    if (m.role === "system") {
      out.push({ role: "system", content: m.content.map((p) => p.text ?? "").join("") });
    } else if (m.role === "user") {
      out.push({ role: "user", content: m.content.filter((p) => p.text !== undefined).map((p) => ({ type: "text", text: p.text })) });
    } else if (m.role === "model") {
      const content = [];
      for (const p of m.content) {
        if (p.text !== undefined) content.push({ type: "text", text: p.text });
        else if (p.reasoning !== undefined) content.push({ type: "reasoning", text: p.reasoning });
        else if (p.toolRequest) content.push({ type: "tool-call", toolCallId: p.toolRequest.ref, toolName: p.toolRequest.name, input: p.toolRequest.input ?? {} });
      }
      out.push({ role: "assistant", content });
    } else if (m.role === "tool") {
      const content = m.content.filter((p) => p.toolResponse).map((p) => {
        const o = p.toolResponse.output;
        return { type: "tool-result", toolCallId: p.toolResponse.ref, toolName: p.toolResponse.name, output: typeof o === "string" ? { type: "text", value: o } : { type: "json", value: o ?? null } };
      });
      out.push({ role: "tool", content });
    }
  }
  return out;
}

function finish(reason) {
  return { stop: "stop", "tool-calls": "stop", length: "length", "content-filter": "blocked" }[reason] ?? "other";
}

/** canonicalModel defines the model on ai and returns it. */
export function canonicalModel(ai, baseURL) {
  return ai.defineModel(
    { apiVersion: "v2", name: "ack/canonical", supports: { tools: true, multiturn: true, systemRole: true } },
    async (request, { streamingRequested, sendChunk, abortSignal }) => {
      const body = { messages: canonicalMessages(request.messages), stream: Boolean(streamingRequested) };
      const tools = (request.tools ?? []).map((t) => ({ name: t.name, description: t.description ?? "", inputSchema: t.inputSchema ?? { type: "object" } }));
      if (tools.length > 0) body.tools = tools;
      // An error answer throws the driver kit's ModelHTTPError ("canonical model: HTTP ...").
      const reply = await callCanonical(baseURL, body, { signal: abortSignal });
      const content = [];
      let reason = "stop";
      const add = (p) => {
        if (p.type === "text") content.push({ text: p.text });
        else if (p.type === "reasoning") content.push({ reasoning: p.text });
        else if (p.type === "tool-call") content.push({ toolRequest: { name: p.toolName, ref: p.toolCallId, input: p.input } });
      };
      if (streamingRequested) {
        for await (const ev of reply) {
          if (ev.type === "text-delta") {
            sendChunk({ content: [{ text: ev.text }] });
            const last = content.at(-1);
            if (last?.text !== undefined) last.text += ev.text;
            else content.push({ text: ev.text });
          } else if (ev.type === "tool-call") {
            add(ev);
            sendChunk({ content: [content.at(-1)] });
          } else if (ev.type === "finish") {
            reason = ev.finishReason;
          }
        }
      } else {
        for (const p of reply.content ?? []) add(p);
        reason = reply.finishReason;
      }
      return { message: { role: "model", content }, finishReason: finish(reason) };
    },
  );
}
