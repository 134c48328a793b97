#!/usr/bin/env node
// LangChain.js (langchain createAgent with humanInTheLoopMiddleware) behind driver protocol v1.
//
//   node adapter.mjs --sdk versions/1.5.14 [--model-api wire|canonical] [--step-limit recursion|middleware] [--listen 127.0.0.1:0]
//
// Prints the driver URL on the first line of stdout. See README.md; the
// protocol's plumbing is the driver kit's (../driverkit).

import { readFileSync } from "node:fs";
import { join } from "node:path";

import { FlagError, runAdapter } from "../driverkit/index.mjs";
import { Runner } from "./src/agent.mjs";

await runAdapter({
  usage: "node adapter.mjs --sdk versions/1.5.14 [--model-api wire|canonical] [--step-limit recursion|middleware] [--listen 127.0.0.1:0]",
  sdk: { package: "langchain", example: "versions/1.5.14" },
  modelAPIs: { wire: ["openai-chat", "openai-responses", "anthropic-messages"], canonical: ["canonical"] },
  flags: { "step-limit": { default: "recursion", choices: ["recursion", "middleware"] } },
  setup: ({ flags, sdk, sdkVersion, sdkDir, modelAPIs }) => {
    // The middleware's `when` predicate (interruptOn[tool].when, a per-call
    // policy) is not in every 1.x version (1.0.6 has none): the installed
    // version's declaration of InterruptOnConfig says whether it has one.
    let dynamicPolicy;
    try {
      dynamicPolicy = /^\s*when\?:/m.test(readFileSync(join(sdkDir, "node_modules", "langchain", "dist", "agents", "middleware", "hitl.d.ts"), "utf8"));
    } catch (e) {
      throw new FlagError(`--sdk ${flags.sdk}: cannot read the middleware's declarations (${e.message})`);
    }
    return {
      agent: new Runner({ sdk, stepLimit: flags["step-limit"], dynamicPolicy }),
      notPlayed: "LangChain's createAgent has no chat client of its own",
      info: {
        name: `langchain-adapter (${flags["model-api"] === "canonical" ? "canonical model" : "ChatOpenAI and ChatAnthropic"})`,
        version: "1.0.0",
        sdk: "langchain",
        sdkVersion,
        roles: ["agent"],
        features: {
          modes: ["generate", "stream"],
          // The middleware's interruptOn config takes a `when` predicate per tool (where the version has one).
          dynamicPolicy,
          // createAgent has no option bounding parallel tool runs.
          concurrency: false,
          // The agent's tools are run by its tools node; there are no provider-run tools with approvals.
          providerExecuted: false,
          toolkitErrors: false,
          denialPolicy: "independent",
          // The tools node gives the model a failed tool's error as an error ToolMessage.
          toolErrors: "result",
          modelAPIs,
          steps: "loop",
          // A paused run is an interrupt in the thread's checkpoint; the state is {thread, checkpoint}.
          resumeState: true,
          // A ToolMessage is text with a status; a rejection is an error ToolMessage with the message.
          untypedResults: true,
          // Every decision of an interrupt is sent together, one per action request, in order.
          batchedDecisions: true,
          // A decision may be an edit of the call's arguments: {type: "edit", editedAction: {name, args}}.
          editedApprovals: true,
        },
      },
    };
  },
});
