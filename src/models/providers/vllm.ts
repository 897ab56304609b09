import { openAICompatibleProvider } from "../openai-compatible-provider.js";

/** A vLLM server (http://localhost:8000/v1 unless VLLM_BASE_URL says otherwise). */
export const vllm = /* @__PURE__ */ openAICompatibleProvider({
  baseURL: "http://localhost:8000/v1",
  env: { apiKey: ["VLLM_API_KEY"], baseURL: ["VLLM_BASE_URL"] },
});
