#!/usr/bin/env node
// The OpenAI Agents SDK (@openai/agents) behind driver protocol v1.
//
//   node adapter.mjs --sdk versions/0.20.0 [--model-api wire|canonical] [--turn-limit state|error] [--run-state client|server] [--listen 127.0.0.1:0]
//
// Prints the driver URL on the first line of stdout. See README.md; the
// protocol's plumbing is the driver kit's (../driverkit).

import { runAdapter } from "../driverkit/index.mjs";
import { Runner } from "./src/agent.mjs";

await runAdapter({
  usage: "node adapter.mjs --sdk versions/0.20.0 [--model-api wire|canonical] [--turn-limit state|error] [--run-state client|server] [--listen 127.0.0.1:0]",
  sdk: { package: "@openai/agents", example: "versions/0.20.0" },
  modelAPIs: { wire: ["openai-chat", "openai-responses"], canonical: ["canonical"] },
  flags: {
    "turn-limit": { default: "state", choices: ["state", "error"] },
    "run-state": { default: "client", choices: ["client", "server"] },
  },
  setup: ({ flags, sdk, sdkVersion, modelAPIs }) => {
    // Traces would be exported to OpenAI's platform; the kit's runs have no key.
    sdk.setTracingDisabled(true);
    return {
      agent: new Runner({ sdk, turnLimit: flags["turn-limit"], runState: flags["run-state"] }),
      notPlayed: "the OpenAI Agents SDK has no chat client",
      info: {
        name: `openai-agents-adapter (${flags["model-api"] === "canonical" ? "canonical model" : "OpenAI Chat Completions and Responses"})`,
        version: "1.0.0",
        sdk: "@openai/agents",
        sdkVersion,
        roles: ["agent"],
        features: {
          modes: ["generate", "stream"],
          dynamicPolicy: true,
          // toolExecution.maxFunctionToolConcurrency (a run option and a
          // RunConfig field, runner/runConfig.d.ts) bounds the local function
          // tools a step runs at once.
          concurrency: true,
          // Hosted MCP approvals (hostedMcpTool with requireApproval) are interruptions the application answers.
          providerExecuted: true,
          // The SDK has no errors of its own for a missing toolkit or an unknown tool.
          toolkitErrors: false,
          denialPolicy: "independent",
          // A throwing tool gives the model its errorFunction's text.
          toolErrors: "result",
          modelAPIs,
          steps: "loop",
          // A paused run resumes from its RunState (result.state.toString()).
          resumeState: true,
          // A result is text: a denial is "Tool execution was not approved." or the reject message.
          untypedResults: true,
          // An answer is state.approve(item) or state.reject(item, {message}) on an interruption.
          boundApprovals: true,
          hostedTools: true,
        },
      },
    };
  },
});
