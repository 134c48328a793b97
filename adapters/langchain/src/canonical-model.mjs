// A chat model of the application's own (a BaseChatModel subclass, as
// LangChain's docs on custom chat models write one: _generate,
// _streamResponseChunks, bindTools) that forwards each call of the agent to
// the kit's canonical model API ({baseURL}/canonical): the messages the
// agent hands its model, as canonical messages, nothing filtered or added.
// A ToolMessage is text; its status "error" is error-text.

import { callCanonical } from "../../driverkit/index.mjs";
import { toCanonical } from "./messages.mjs";

/** canonicalModel is a chat model speaking the canonical model API at baseURL. */
export function canonicalModel(sdk, baseURL) {
  const { BaseChatModel, AIMessage, AIMessageChunk, ChatGenerationChunk, convertToOpenAITool } = sdk;

  class CanonicalChatModel extends BaseChatModel {
    constructor(fields = {}) {
      super(fields);
      this.tools = fields.tools ?? [];
    }

    _llmType() {
      return "ack-canonical";
    }

    bindTools(tools) {
      return new CanonicalChatModel({ tools });
    }

    body(messages, stream) {
      const body = { messages: toCanonical(messages), stream };
      const tools = this.tools.map((t) => {
        const f = convertToOpenAITool(t).function;
        return { name: f.name, description: f.description ?? "", inputSchema: f.parameters ?? { type: "object" } };
      });
      if (tools.length > 0) body.tools = tools;
      return body;
    }

    // An error answer throws the driver kit's ModelHTTPError.
    async _generate(messages, options) {
      const reply = await callCanonical(baseURL, this.body(messages, false), { signal: options?.signal });
      let text = "";
      const calls = [];
      for (const p of reply.content ?? []) {
        if (p.type === "text") text += p.text;
        if (p.type === "tool-call") calls.push({ type: "tool_call", id: p.toolCallId, name: p.toolName, args: p.input ?? {} });
      }
      const message = new AIMessage({ content: text, tool_calls: calls, response_metadata: { finish_reason: reply.finishReason } });
      return { generations: [{ text, message }] };
    }

    async *_streamResponseChunks(messages, options, runManager) {
      const events = await callCanonical(baseURL, this.body(messages, true), { signal: options?.signal });
      let index = 0;
      for await (const ev of events) {
        if (ev.type === "text-delta") {
          const chunk = new ChatGenerationChunk({ text: ev.text, message: new AIMessageChunk({ content: ev.text }) });
          yield chunk;
          await runManager?.handleLLMNewToken(ev.text, undefined, undefined, undefined, undefined, { chunk });
        } else if (ev.type === "tool-call") {
          yield new ChatGenerationChunk({
            text: "",
            message: new AIMessageChunk({ content: "", tool_call_chunks: [{ type: "tool_call_chunk", id: ev.toolCallId, name: ev.toolName, args: JSON.stringify(ev.input ?? {}), index: index++ }] }),
          });
        } else if (ev.type === "finish") {
          yield new ChatGenerationChunk({ text: "", message: new AIMessageChunk({ content: "", response_metadata: { finish_reason: ev.finishReason } }) });
        }
      }
    }
  }
  return new CanonicalChatModel();
}
