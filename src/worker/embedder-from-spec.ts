import type { Embedder } from "../knowledge/embedder.js";
import { googleEmbedder } from "../knowledge/embedders/google-embedder.js";
import { mistralEmbedder } from "../knowledge/embedders/mistral-embedder.js";
import { openAICompatibleEmbedder } from "../knowledge/embedders/openai-compatible-embedder.js";
import { openAIEmbedder } from "../knowledge/embedders/openai-embedder.js";
import { WorkersAIEmbedder } from "../knowledge/embedders/workers-ai-embedder.js";
import type { ProviderCredentials } from "../models/model-provider.js";
import type { WorkersAIBinding } from "../models/workers-ai-model.js";

/**
 * The embedder an `EMBEDDER` (or the default derived from `MODEL`) names, `provider:model-id`,
 * with the provider's credentials and base URL as the model uses them: the same key, the same
 * server. Undefined for a provider without embedding models here.
 */
export function embedderFromSpec(
  spec: string,
  credentials: Partial<Record<string, ProviderCredentials>>,
  ai?: WorkersAIBinding,
): Embedder | undefined {
  const at = spec.indexOf(":");
  const provider = spec.slice(0, at);
  const model = spec.slice(at + 1);
  const creds = credentials[provider] ?? {};
  switch (provider) {
    case "openai":
      return openAIEmbedder({ ...(credentials.openai ?? {}), model });
    case "google":
      return googleEmbedder({ ...creds, model });
    case "mistral":
      return mistralEmbedder({ ...creds, model });
    case "openai-compatible":
      if (!creds.baseURL) return undefined;
      return openAICompatibleEmbedder({ ...creds, baseURL: creds.baseURL, model, dimensions: 1536 });
    case "workers-ai":
      return ai ? new WorkersAIEmbedder(ai, model) : undefined;
    default:
      return undefined;
  }
}
