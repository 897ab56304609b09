import { createMistral } from "@ai-sdk/mistral";
import { AiSdkModel } from "../ai-sdk-model.js";
import type { ModelProvider } from "../model-provider.js";

/** Mistral. */
export const mistral: ModelProvider = {
  defaultModel: "mistral-large-latest",
  env: { apiKey: ["MISTRAL_API_KEY"] },
  model: (id, opts) => new AiSdkModel(createMistral(opts.credentials)(id), opts, opts.name),
};
