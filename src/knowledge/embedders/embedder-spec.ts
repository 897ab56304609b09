import { ValidationError } from "../../errors.js";
import type { ProviderCredentials } from "../../models/model-provider.js";
import type { Embedder } from "../embedder.js";
import { googleEmbedder } from "./google-embedder.js";
import { mistralEmbedder } from "./mistral-embedder.js";
import { openAICompatibleEmbedder } from "./openai-compatible-embedder.js";
import { openAIEmbedder } from "./openai-embedder.js";

/** Each provider's default embedding model, for a spec that names only the provider. */
export const DEFAULT_EMBEDDING_MODELS: Record<string, string> = {
  openai: "text-embedding-3-small",
  google: "gemini-embedding-001",
  mistral: "mistral-embed",
};

/**
 * An embedder from `"provider:model-id"` (openai, google, mistral, openai-compatible), with that
 * provider's credentials (key and base URL): what `EMBEDDER=...` names. Importing this bundles
 * every embedding provider package; a Worker using one imports its factory instead.
 *
 * @example
 * const embedder = embedderFromSpec("openai:text-embedding-3-small", { apiKey, dimensions: 512 });
 */
export function embedderFromSpec(
  spec: string,
  opts: ProviderCredentials & { dimensions?: number; maxRetries?: number; batchSize?: number } = {},
): Embedder {
  const at = spec.indexOf(":");
  const provider = at === -1 ? spec : spec.slice(0, at);
  const model = (at === -1 ? "" : spec.slice(at + 1)) || DEFAULT_EMBEDDING_MODELS[provider];
  switch (provider) {
    case "openai":
      return openAIEmbedder({ ...opts, model });
    case "google":
      return googleEmbedder({ ...opts, model });
    case "mistral":
      return mistralEmbedder({ ...opts, model });
    case "openai-compatible":
    case "ollama":
    case "vllm":
      if (!opts.baseURL || !model || !opts.dimensions)
        throw new ValidationError(`embedder ${spec} needs a model id, a base URL and dimensions`, "embedder");
      return openAICompatibleEmbedder({
        ...opts,
        baseURL: opts.baseURL,
        model,
        dimensions: opts.dimensions,
        name: provider,
      });
    default:
      throw new ValidationError(
        `unknown embedding provider "${provider}" in "${spec}": one of openai, google, mistral, openai-compatible`,
        "embedder",
      );
  }
}
