import { createGroq } from "@ai-sdk/groq";
import { AiSdkModel } from "../ai-sdk-model.js";
import type { ModelProvider } from "../model-provider.js";

/** Groq. */
export const groq: ModelProvider = {
  defaultModel: "openai/gpt-oss-120b",
  env: { apiKey: ["GROQ_API_KEY"] },
  model: (id, opts) => new AiSdkModel(createGroq(opts.credentials)(id), opts, opts.name),
};
