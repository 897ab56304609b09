import { openAICompatibleProvider } from "../openai-compatible-provider.js";

/** A local Ollama server (http://localhost:11434/v1 unless OLLAMA_BASE_URL says otherwise). */
export const ollama = /* @__PURE__ */ openAICompatibleProvider({
  defaultModel: "llama3.1",
  baseURL: "http://localhost:11434/v1",
  env: { baseURL: ["OLLAMA_BASE_URL"] },
});
