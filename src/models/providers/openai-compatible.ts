import { openAICompatibleProvider } from "../openai-compatible-provider.js";

/** Any OpenAI-compatible server: its base URL comes from the credentials or OPENAI_COMPATIBLE_BASE_URL. */
export const openaiCompatible = /* @__PURE__ */ openAICompatibleProvider({
  env: { apiKey: ["OPENAI_COMPATIBLE_API_KEY"], baseURL: ["OPENAI_COMPATIBLE_BASE_URL"] },
});
