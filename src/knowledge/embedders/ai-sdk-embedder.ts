import type { EmbeddingModelV3 } from "@ai-sdk/provider";
import type { JSONObject } from "@ai-sdk/provider";
import type { EmbedResult, Embedder } from "../embedder.js";
import { EmbedderError } from "../errors.js";
import { batches, withEmbedRetries } from "./retry.js";

export interface AiSdkEmbedderOptions {
  /** length of the vectors (what the vector table is made with) */
  dimensions: number;
  /** shown in /knowledge/config; default "<provider>:<model id>" */
  id?: string;
  /** texts per call; default the model's own limit, else 100 */
  batchSize?: number;
  /** retries of retryable failures (rate limit, server, network); default 2, as model calls */
  maxRetries?: number;
  /** the provider's embedding options (`{ openai: { dimensions } }`, `{ google: { outputDimensionality } }`) */
  providerOptions?: Record<string, JSONObject>;
}

/**
 * An Embedder over an AI SDK provider package's embedding model (`createOpenAI().embedding(id)`,
 * `createGoogleGenerativeAI().embedding(id)`, …), calling its `doEmbed` directly: no `ai` package.
 * Batches by the model's per-call limit, retries as model calls do, checks every vector's length.
 *
 * @example
 * const embedder = new AiSdkEmbedder(createOpenAI({ apiKey }).embedding("text-embedding-3-small"), { dimensions: 1536 });
 */
export class AiSdkEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions: number;

  constructor(
    private readonly model: EmbeddingModelV3,
    private readonly opts: AiSdkEmbedderOptions,
  ) {
    this.id = opts.id ?? `${model.provider.split(".")[0]}:${model.modelId}`;
    this.dimensions = opts.dimensions;
  }

  async embed(texts: string[], opts: { signal?: AbortSignal } = {}): Promise<EmbedResult> {
    if (texts.length === 0) return { embeddings: [] };
    const limit = (await this.model.maxEmbeddingsPerCall) ?? 100;
    const size = Math.max(1, Math.min(this.opts.batchSize ?? limit, limit));
    const embeddings: number[][] = [];
    let tokens = 0;
    for (const values of batches(texts, size)) {
      const result = await withEmbedRetries(
        this.model.provider,
        this.opts.maxRetries ?? 2,
        async () =>
          await this.model.doEmbed({
            values,
            abortSignal: opts.signal,
            ...(this.opts.providerOptions ? { providerOptions: this.opts.providerOptions } : {}),
          }),
        opts.signal,
      );
      if (result.embeddings.length !== values.length)
        throw new EmbedderError(
          `embedder ${this.id} returned ${result.embeddings.length} vectors for ${values.length} texts`,
        );
      for (const e of result.embeddings) {
        if (e.length !== this.dimensions)
          throw new EmbedderError(
            `embedder ${this.id} returned a vector of ${e.length} dimensions, expected ${this.dimensions}`,
          );
        embeddings.push(Array.from(e));
      }
      tokens += result.usage?.tokens ?? 0;
    }
    return { embeddings, usage: { tokens } };
  }
}
