import type { ModelSettings } from "./ai-sdk-model.js";
import type { ProviderModelOptions } from "./model-provider.js";

/** The OpenAI-only options (reasoning effort and summary, service tier, verbosity) as the AI SDK's `providerOptions.openai`. */
export function openAIOptions(opts: ProviderModelOptions): ModelSettings["providerOptions"] {
  const openai = {
    ...(opts.reasoningEffort && { reasoningEffort: opts.reasoningEffort }),
    ...(opts.reasoningSummary && { reasoningSummary: opts.reasoningSummary }),
    ...(opts.serviceTier && { serviceTier: opts.serviceTier }),
    ...(opts.verbosity && { textVerbosity: opts.verbosity }),
  };
  return Object.keys(openai).length
    ? { ...opts.providerOptions, openai: { ...opts.providerOptions?.openai, ...openai } }
    : opts.providerOptions;
}
