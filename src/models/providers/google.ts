import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { AiSdkModel } from "../ai-sdk-model.js";
import type { ModelProvider } from "../model-provider.js";

/** Google's Gemini API (Generative Language, not Vertex). */
export const google: ModelProvider = {
  defaultModel: "gemini-3.7-flash",
  env: { apiKey: ["GOOGLE_GENERATIVE_AI_API_KEY", "GOOGLE_API_KEY"] },
  model: (id, opts) => new AiSdkModel(createGoogleGenerativeAI(opts.credentials)(id), opts, opts.name),
};
