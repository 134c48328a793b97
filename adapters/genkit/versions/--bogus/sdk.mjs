// The SDK packages of one installed version. install.sh copies this file
// into versions/<version>/, so that the imports below resolve from that
// version's node_modules; the adapter imports it from there.
export { genkit, generateMiddleware, restartTool, respondTool, GenkitError } from "genkit";
export { toolApproval } from "@genkit-ai/middleware";
export { openAICompatible } from "@genkit-ai/compat-oai";
export { anthropic } from "@genkit-ai/anthropic";
