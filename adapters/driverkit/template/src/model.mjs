// The model the SDK calls: a model of the application's own, written in
// the SDK's model interface, that forwards every call to the kit's
// canonical model API ({model.baseURL}/canonical). The prompt goes as the
// SDK hands it to its model, nothing filtered and nothing added, so that
// every check sees what the SDK sends (docs/driver-protocol.md, The
// canonical model API).
//
// SDK: write this in your SDK's model interface (the AI SDK's
// LanguageModelV3, LangChain's BaseChatModel, Genkit's defineModel, an
// Agents SDK Model, ...), mapping its prompt to canonical messages and the
// reply back. The example SDK's prompt is canonical already. If your SDK
// only speaks a provider's wire (OpenAI Chat Completions, Responses,
// Anthropic Messages), point its own client at model.baseURL instead and
// declare those wires in modelAPIs (docs/adapter-guide.md, The model).

import { callCanonical } from "../driverkit/index.mjs";

/** canonicalModel is the example SDK's model interface over the canonical model API at baseURL. */
export function canonicalModel(baseURL) {
  const body = ({ messages, tools }, stream) => ({ messages, ...(tools.length > 0 ? { tools } : {}), stream });
  return {
    // An error answer (a scenario's scripted model error) throws the kit's
    // ModelHTTPError; the SDK's own error for a provider's error answer
    // goes in callCanonical's `error` option.
    generate: (call) => callCanonical(baseURL, body(call, false)),
    async *stream(call) {
      yield* await callCanonical(baseURL, body(call, true));
    },
  };
}
