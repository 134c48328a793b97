// The SDK packages of one installed version. install.sh copies this file
// into versions/<version>/, so that the imports below resolve from that
// version's node_modules; the adapter imports it from there.
export * as ai from "ai";
export * as openai from "@ai-sdk/openai";
export * as anthropic from "@ai-sdk/anthropic";
export { z } from "zod";
