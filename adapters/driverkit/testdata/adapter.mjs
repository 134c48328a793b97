// A small adapter on the kit, for the kit's tests of runAdapter: its SDK
// is a folder the test makes (--sdk), its turn answers what it was given.
import { FlagError, runAdapter } from "../index.mjs";

await runAdapter({
  usage: "node adapter.mjs --sdk DIR [--model-api wire|canonical] [--mood calm|busy] [--declare wrong]",
  sdk: { package: "fake-sdk", example: "versions/1.0.0" },
  modelAPIs: { wire: ["openai-chat"], canonical: ["canonical"] },
  flags: { mood: { default: "calm", choices: ["calm", "busy"] }, declare: {}, fail: {} },
  setup: ({ flags, sdk, sdkVersion, modelAPIs }) => {
    if (flags.fail) throw new FlagError(`--fail ${flags.fail}: as asked`);
    return {
      agent: { turn: (req) => ({ messages: [{ role: "assistant", content: [{ type: "text", text: `${sdk.greeting} ${req.conversation}` }] }], finishReason: "stop" }) },
      info: {
        name: `test-adapter (${flags.mood})`,
        version: "0.0.1",
        sdk: "fake-sdk",
        sdkVersion,
        roles: ["agent"],
        features: {
          modes: ["generate"], dynamicPolicy: false, concurrency: false, providerExecuted: false, toolkitErrors: false,
          denialPolicy: "independent", toolErrors: "result", modelAPIs, ...(flags.declare ? { [flags.declare]: true } : {}),
        },
      },
    };
  },
});
