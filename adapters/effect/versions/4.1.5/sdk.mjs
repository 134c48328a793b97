// The SDK modules of one installed Effect version whose AI modules are
// effect/ai (4.0.0-rc and later). install.sh copies this file into
// versions/<version>/sdk.mjs, so that the imports resolve from that
// version's node_modules; the adapter imports it from there.
export { Cause, Effect, Exit, JsonSchema, Layer, Schema, SchemaRepresentation, Stream } from "effect";
export { AiError, LanguageModel, Prompt, Response, Tool, Toolkit } from "effect/ai";
export const aiModule = "effect/ai";
