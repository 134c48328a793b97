#!/usr/bin/env node
// Genkit JS (genkit generate() with the toolApproval middleware) behind driver protocol v1.
//
//   node adapter.mjs --sdk versions/1.42.0 [--model-api wire|canonical] [--modes generate,stream] [--settle-tools on|off] [--listen 127.0.0.1:0]
//
// Prints the driver URL on the first line of stdout. See README.md; the
// protocol's plumbing is the driver kit's (../driverkit).

import { FlagError, runAdapter } from "../driverkit/index.mjs";
import { Runner } from "./src/agent.mjs";

await runAdapter({
  usage: "node adapter.mjs --sdk versions/1.42.0 [--model-api wire|canonical] [--modes generate,stream] [--settle-tools on|off] [--listen 127.0.0.1:0]",
  sdk: { package: "genkit", example: "versions/1.42.0" },
  modelAPIs: { wire: ["openai-chat", "anthropic-messages"], canonical: ["canonical"] },
  flags: {
    "settle-tools": { default: "on", choices: ["on", "off"] },
    modes: { default: "generate,stream" },
  },
  setup: ({ flags, sdk, sdkVersion, modelAPIs }) => {
    // The modes the adapter offers: generate() and generateStream(), or
    // generate() alone (the wire path: generateStream stalls on a large
    // streamed tool input, README.md).
    const modes = flags.modes.split(",");
    if (modes.some((m) => m !== "generate" && m !== "stream") || new Set(modes).size !== modes.length) {
      throw new FlagError(`--modes ${flags.modes}: want generate, stream or generate,stream`);
    }
    return {
      agent: new Runner({ sdk, settleTools: flags["settle-tools"] === "on" }),
      notPlayed: "Genkit's generate() has no chat client of its own",
      info: {
        name: `genkit-adapter (${flags["model-api"] === "canonical" ? "canonical model" : "compat_oai and anthropic plugins"})`,
        version: "1.0.0",
        sdk: "genkit",
        sdkVersion,
        roles: ["agent"],
        features: {
          modes,
          // toolApproval takes a fixed list of approved tools: no per-call policy.
          dynamicPolicy: false,
          // generate() has no option bounding parallel tool runs.
          concurrency: false,
          providerExecuted: false,
          toolkitErrors: false,
          denialPolicy: "independent",
          // A throwing tool fails the generation.
          toolErrors: "turn-error",
          modelAPIs,
          steps: "loop",
          // A denial is the application's respondTool output: an ordinary result.
          untypedResults: true,
          // resume must restart or respond to every interrupted call of the message it resumes.
          batchedDecisions: true,
          // An approval may restart the call with new input: restartTool(interrupt, {toolApproved: true}, {replaceInput}).
          editedApprovals: true,
        },
      },
    };
  },
});
