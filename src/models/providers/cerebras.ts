import { createCerebras } from "@ai-sdk/cerebras";
import { AiSdkModel } from "../ai-sdk-model.js";
import type { ModelProvider } from "../model-provider.js";

/** Cerebras. */
export const cerebras: ModelProvider = {
  defaultModel: "gpt-oss-120b",
  env: { apiKey: ["CEREBRAS_API_KEY"] },
  model: (id, opts) => new AiSdkModel(createCerebras(opts.credentials)(id), opts, opts.name),
};
