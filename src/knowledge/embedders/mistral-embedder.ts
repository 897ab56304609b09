import { createMistral } from "@ai-sdk/mistral";
import type { ProviderCredentials } from "../../models/model-provider.js";
import { AiSdkEmbedder, type AiSdkEmbedderOptions } from "./ai-sdk-embedder.js";

/** agno's MistralEmbedder: `mistral-embed`, 1024 dimensions. */
export function mistralEmbedder(
  opts: Partial<AiSdkEmbedderOptions> & ProviderCredentials & { model?: string } = {},
): AiSdkEmbedder {
  const model = opts.model ?? "mistral-embed";
  return new AiSdkEmbedder(
    createMistral({ apiKey: opts.apiKey, baseURL: opts.baseURL, headers: opts.headers }).embedding(model),
    { ...opts, id: opts.id ?? `mistral:${model}`, dimensions: opts.dimensions ?? 1024 },
  );
}
