// The SDK modules of one installed Effect version whose AI modules are
// effect/unstable/ai (the 4.0.0 betas). install.sh copies this file into
// versions/<version>/sdk.mjs, so that the imports resolve from that
// version's node_modules; the adapter imports it from there.
export { Cause, Effect, Exit, JsonSchema, Layer, Schema, SchemaRepresentation, Stream } from "effect";
export { AiError, LanguageModel, Prompt, Response, Tool, Toolkit } from "effect/unstable/ai";
export const aiModule = "effect/unstable/ai";
