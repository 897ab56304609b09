import { createGoogleGenerativeAI } from "@ai-sdk/google";
import type { ProviderCredentials } from "../../models/model-provider.js";
import { AiSdkEmbedder, type AiSdkEmbedderOptions } from "./ai-sdk-embedder.js";

/** agno's GeminiEmbedder: `gemini-embedding-001`, 1536 dimensions by default (sent as outputDimensionality). */
export function googleEmbedder(
  opts: Partial<AiSdkEmbedderOptions> & ProviderCredentials & { model?: string } = {},
): AiSdkEmbedder {
  const model = opts.model ?? "gemini-embedding-001";
  const dimensions = opts.dimensions ?? 1536;
  return new AiSdkEmbedder(
    createGoogleGenerativeAI({ apiKey: opts.apiKey, baseURL: opts.baseURL, headers: opts.headers }).embedding(model),
    {
      ...opts,
      id: opts.id ?? `google:${model}`,
      dimensions,
      providerOptions: { google: { outputDimensionality: dimensions }, ...opts.providerOptions },
    },
  );
}
