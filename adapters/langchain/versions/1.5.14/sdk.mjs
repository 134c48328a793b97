// The SDK packages of one installed version. install.sh copies this file
// into versions/<version>/, so that the imports below resolve from that
// version's node_modules; the adapter imports it from there.
export { createAgent, humanInTheLoopMiddleware, modelCallLimitMiddleware, tool } from "langchain";
export { MemorySaver, Command, GraphRecursionError } from "@langchain/langgraph";
export { AIMessage, AIMessageChunk, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
export { BaseChatModel } from "@langchain/core/language_models/chat_models";
export { ChatGenerationChunk } from "@langchain/core/outputs";
export { ChatOpenAI } from "@langchain/openai";
export { ChatAnthropic } from "@langchain/anthropic";
export { convertToOpenAITool } from "@langchain/core/utils/function_calling";
