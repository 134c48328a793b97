#!/usr/bin/env node
// An adapter that puts an SDK behind driver protocol v1, so that the
// Approval Conformance Kit can certify it:
//
//   node adapter.mjs [--listen 127.0.0.1:0]
//
// It prints its URL on the first line of stdout; `conformance run
// --target URL` runs the suite against it (./check.sh does both). As
// written, it serves the small example SDK in ../example-sdk, which passes
// the suite's agent role; the places marked SDK: (here and in src/) are
// where your SDK goes. README.md says what to change, in order.

import { randomBytes } from "node:crypto";

import { runAdapter } from "./driverkit/index.mjs";
import { Runner } from "./src/agent.mjs";

await runAdapter({
  usage: "node adapter.mjs [--listen 127.0.0.1:0]",
  // SDK: an adapter that certifies installed versions of its SDK takes
  // --sdk DIR, a version folder holding the SDK's node_modules and an
  // sdk.mjs that imports it (the kit's adapters make them with an
  // install.sh from a lockfile); setup then gets that version as `sdk`:
  //   sdk: { package: "my-sdk", example: "versions/1.2.3" },
  // An adapter that points its SDK at the providers' own wires too offers
  // --model-api wire|canonical:
  //   modelAPIs: { wire: ["openai-chat"], canonical: ["canonical"] },
  // SDK: your adapter's own flags, each a choice that moves a verdict
  // (docs/adapter-guide.md, Choices that move a verdict):
  //   flags: { "step-limit": { default: "5", choices: ["5", "sdk"] } },
  setup: ({ sdkVersion }) => ({
    agent: new Runner({ secret: randomBytes(32) }),
    notPlayed: "the example SDK has no chat client or chat server",
    // What the SDK does, and nothing more: a feature declared but not
    // implemented fails its scenarios; one left out makes them not
    // applicable (docs/driver-protocol.md, GET /v1/info, lists them all).
    info: {
      name: "example-adapter",
      version: "0.1.0",
      // SDK: your SDK's package name and installed version (sdkVersion).
      sdk: "example-sdk",
      sdkVersion: sdkVersion ?? "0.1.0",
      roles: ["agent"],
      features: {
        modes: ["generate", "stream"],
        // needsApproval may be a function of the call and the conversation.
        dynamicPolicy: true,
        // The concurrency option bounds the tools a turn runs at once.
        concurrency: true,
        // The ledger's size is the turn's options.replayLedger.
        replayLedger: true,
        // The SDK runs every tool itself.
        providerExecuted: false,
        // Answers without a toolkit are refused with a code of their own.
        toolkitErrors: true,
        denialPolicy: "independent",
        // A failing tool gives the model an error result.
        toolErrors: "result",
        // The model is the SDK's own interface over the canonical model API.
        modelAPIs: ["canonical"],
        steps: "loop",
      },
    },
  }),
});
