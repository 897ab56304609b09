import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { AiSdkEmbedder, type AiSdkEmbedderOptions } from "./ai-sdk-embedder.js";

/** Any OpenAI-compatible embeddings endpoint (vLLM, Ollama, Together, …) by base URL. */
export function openAICompatibleEmbedder(
  opts: AiSdkEmbedderOptions & {
    baseURL: string;
    model: string;
    apiKey?: string;
    name?: string;
    headers?: Record<string, string>;
  },
): AiSdkEmbedder {
  const name = opts.name ?? "openai-compatible";
  return new AiSdkEmbedder(
    createOpenAICompatible({ name, baseURL: opts.baseURL, apiKey: opts.apiKey, headers: opts.headers }).embeddingModel(
      opts.model,
    ),
    { ...opts, id: opts.id ?? `${name}:${opts.model}` },
  );
}
