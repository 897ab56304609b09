import { createAnthropic } from "@ai-sdk/anthropic";
import { AiSdkModel } from "../ai-sdk-model.js";
import type { ModelProvider } from "../model-provider.js";

/** Anthropic's Messages API. */
export const anthropic: ModelProvider = {
  defaultModel: "claude-sonnet-4-5-20250929",
  env: { apiKey: ["ANTHROPIC_API_KEY"], baseURL: ["ANTHROPIC_BASE_URL"] },
  model: (id, opts) => new AiSdkModel(createAnthropic(opts.credentials)(id), opts, opts.name),
};
