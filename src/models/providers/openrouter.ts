import { openAICompatibleProvider } from "../openai-compatible-provider.js";

/** OpenRouter. */
export const openrouter = /* @__PURE__ */ openAICompatibleProvider({
  defaultModel: "gpt-5.4-mini",
  baseURL: "https://openrouter.ai/api/v1",
  env: { apiKey: ["OPENROUTER_API_KEY"] },
});
