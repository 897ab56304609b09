import { createOpenAI } from "@ai-sdk/openai";
import { AiSdkModel } from "../ai-sdk-model.js";
import type { ModelProvider } from "../model-provider.js";
import { openAICredentials } from "../openai-credentials.js";
import { openAIOptions } from "../openai-options.js";

/** OpenAI over Chat Completions (as agno's OpenAIChat, and what every OpenAI-compatible server speaks). */
export const openai: ModelProvider = {
  defaultModel: "gpt-5.4-mini",
  env: { apiKey: ["OPENAI_API_KEY"], baseURL: ["OPENAI_BASE_URL"] },
  model: (id, opts) =>
    new AiSdkModel(
      createOpenAI(openAICredentials(opts.credentials)).chat(id),
      { ...opts, providerOptions: openAIOptions(opts) },
      opts.name,
    ),
};
