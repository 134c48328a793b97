// Helpers of the reproductions: a scripted language model made with the
// SDK's own LanguageModel.make (it answers each call with the next reply of
// its script and records the prompt it was given), a tool that counts its
// runs, and a runner. Nothing of the kit.
import { Effect, Schema } from "./sdk.mjs";
import { LanguageModel, Prompt, Tool, Toolkit } from "./sdk.mjs";

/** scriptedModel answers the n-th call with replies[n] (encoded response parts). */
export function scriptedModel(replies) {
  const prompts = [];
  const model = LanguageModel.make({
    generateText: (options) =>
      Effect.sync(() => {
        prompts.push(options.prompt.content.map((m) => ({ role: m.role, content: typeof m.content === "string" ? m.content : m.content.map((p) => ({ ...p })) })));
        return replies[prompts.length - 1] ?? [{ type: "text", text: "(past the script)" }, finish("stop")];
      }),
    streamText: () => {
      throw new Error("not used");
    },
  });
  return { model, prompts };
}

export const finish = (reason) => ({ type: "finish", reason, usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } } });
export const call = (id, name, params) => ({ type: "tool-call", id, name, params, providerExecuted: false });

/**
 * countingToolkit: one tool that needs approval (or the given
 * needsApproval), recording its runs (call ids) and the params of each.
 */
export function countingToolkit(name, needsApproval = true) {
  const runs = [];
  const inputs = [];
  const tool = Tool.make(name, {
    parameters: Schema.Struct({ path: Schema.String }),
    success: Schema.Unknown,
    failure: Schema.String,
    failureMode: "return",
    needsApproval,
  });
  const toolkit = Toolkit.make(tool);
  const layer = toolkit.toLayer({
    [name]: (params, ctx) =>
      Effect.sync(() => {
        runs.push(ctx.toolCallId);
        inputs.push(params);
        return { done: params.path };
      }),
  });
  return { toolkit, layer, runs, inputs };
}

/** generate runs LanguageModel.generateText with the model and toolkit. */
export function generate(model, tk, prompt) {
  return Effect.runPromise(
    LanguageModel.generateText({ prompt, toolkit: tk.toolkit }).pipe(
      Effect.provide(tk.layer),
      Effect.provideServiceEffect(LanguageModel.LanguageModel, model),
    ),
  );
}

/** history is the prompt followed by the response laid out as Effect's Chat lays it out. */
export function history(prompt, response) {
  return [...Prompt.make(prompt).content, ...Prompt.fromResponseParts(response.content).content];
}

export const show = (x) => JSON.stringify(x, (k, v) => (k.startsWith("~") ? undefined : v));
