import { createOpenAI } from "@ai-sdk/openai";
import { openAICredentials } from "../../models/openai-credentials.js";
import type { ProviderCredentials } from "../../models/model-provider.js";
import { AiSdkEmbedder, type AiSdkEmbedderOptions } from "./ai-sdk-embedder.js";

/**
 * agno's OpenAIEmbedder: `text-embedding-3-small` at 1536 dimensions by default; `dimensions` is
 * sent to the v3 models (which shorten their vectors), `baseURL` serves any OpenAI-compatible server.
 */
export function openAIEmbedder(
  opts: Partial<AiSdkEmbedderOptions> & ProviderCredentials & { model?: string } = {},
): AiSdkEmbedder {
  const model = opts.model ?? "text-embedding-3-small";
  const dimensions = opts.dimensions ?? (model === "text-embedding-3-large" ? 3072 : 1536);
  const sendDimensions = model.startsWith("text-embedding-3") && opts.dimensions !== undefined;
  return new AiSdkEmbedder(
    createOpenAI(openAICredentials({ apiKey: opts.apiKey, baseURL: opts.baseURL, headers: opts.headers })).embedding(
      model,
    ),
    {
      ...opts,
      id: opts.id ?? `openai:${model}`,
      dimensions,
      ...(sendDimensions ? { providerOptions: { openai: { dimensions }, ...opts.providerOptions } } : {}),
    },
  );
}
