// The SDK packages of one installed version. install.sh copies this file
// into versions/<version>/, so that the imports below resolve from that
// version's node_modules; the adapter imports it from there.
export { Agent } from "@mastra/core/agent";
export { MessageList } from "@mastra/core/agent/message-list";
export { Mastra } from "@mastra/core/mastra";
export { createTool } from "@mastra/core/tools";
export { InMemoryStore } from "@mastra/core/storage";
export { RequestContext } from "@mastra/core/request-context";
export * as openai from "@ai-sdk/openai";
export * as anthropic from "@ai-sdk/anthropic";
// The AI SDK's provider error, as the provider packages raise it.
export { APICallError } from "@ai-sdk/provider";
