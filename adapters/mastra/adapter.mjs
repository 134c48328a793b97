#!/usr/bin/env node
// Mastra (@mastra/core) agents behind driver protocol v1.
//
//   node adapter.mjs --sdk versions/1.71.0 [--model-api wire|canonical] [--eager-tool-execution] [--listen 127.0.0.1:0]
//
// Prints the driver URL on the first line of stdout. See README.md; the
// protocol's plumbing is the driver kit's (../driverkit).

import { runAdapter } from "../driverkit/index.mjs";
import { Runner } from "./src/agent.mjs";

await runAdapter({
  usage: "node adapter.mjs --sdk versions/1.71.0 [--model-api wire|canonical] [--eager-tool-execution] [--listen 127.0.0.1:0]",
  sdk: { package: "@mastra/core", example: "versions/1.71.0" },
  modelAPIs: { wire: ["openai-chat", "openai-responses", "anthropic-messages"], canonical: ["canonical"] },
  flags: {
    // Mastra's default for Agent.stream(): tools that need no approval start
    // while the model streams. Off unless asked: see src/agent.mjs, Runner.
    "eager-tool-execution": { type: "boolean", default: false },
  },
  setup: ({ flags, sdk, sdkVersion, modelAPIs }) => ({
    agent: new Runner({ sdk, eagerToolExecution: flags["eager-tool-execution"] }),
    notPlayed: "Mastra's agents have no chat client in this adapter",
    info: {
      name: `mastra-adapter (${flags["model-api"] === "canonical" ? "canonical model" : "AI SDK 5 provider packages"}${flags["eager-tool-execution"] ? ", eager tool execution" : ""})`,
      version: "1.0.0",
      sdk: "@mastra/core",
      sdkVersion,
      roles: ["agent"],
      features: {
        modes: ["generate", "stream"],
        // createTool({requireApproval: fn}) decides per call, with the call's
        // input and the request context (not its id: REQ-04 judges that); a
        // throwing fn requires approval (resolveToolApprovalVerdict).
        dynamicPolicy: true,
        // toolCallConcurrency.
        concurrency: true,
        providerExecuted: false,
        // Mastra has no errors of its own for a missing toolkit or an unknown tool.
        toolkitErrors: false,
        denialPolicy: "independent",
        toolErrors: "result",
        modelAPIs,
        steps: "loop",
        // A suspended run resumes from Mastra's snapshot, by its run id.
        resumeState: true,
        // A declined call's result is text: the reason, or "Tool call was not approved by the user".
        untypedResults: true,
        // Not boundApprovals: approveToolCall / declineToolCall take the
        // answer's toolCallId, so an answer naming no call the run waits on (a
        // stray answer) is expressible, and goes to Mastra as it came.
      },
    },
  }),
});
