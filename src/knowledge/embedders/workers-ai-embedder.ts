import type { WorkersAIBinding } from "../../models/workers-ai-model.js";
import type { EmbedResult, Embedder } from "../embedder.js";
import { EmbedderError } from "../errors.js";
import { batches, withEmbedRetries } from "./retry.js";

/** Output dimensions of Workers AI's text embedding models. */
const DIMENSIONS: Record<string, number> = {
  "@cf/baai/bge-small-en-v1.5": 384,
  "@cf/baai/bge-base-en-v1.5": 768,
  "@cf/baai/bge-large-en-v1.5": 1024,
  "@cf/baai/bge-m3": 1024,
  "@cf/google/embeddinggemma-300m": 768,
  "@cf/qwen/qwen3-embedding-0.6b": 1024,
};

/**
 * Workers AI embeddings through the AI binding (`env.AI.run(model, { text: [...] })`, answered
 * `{ shape, data }`). Batched (the bge models take 100 texts a call) and retried as model calls.
 *
 * @example
 * const embedder = new WorkersAIEmbedder(env.AI, "@cf/baai/bge-base-en-v1.5");
 */
export class WorkersAIEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions: number;

  constructor(
    private readonly binding: WorkersAIBinding,
    readonly model = "@cf/baai/bge-base-en-v1.5",
    private readonly opts: { dimensions?: number; batchSize?: number; maxRetries?: number } = {},
  ) {
    const dims = opts.dimensions ?? DIMENSIONS[model];
    if (!dims) throw new EmbedderError(`unknown dimensions of Workers AI model ${model}: pass dimensions`);
    this.dimensions = dims;
    this.id = `workers-ai:${model}`;
  }

  async embed(texts: string[], opts: { signal?: AbortSignal } = {}): Promise<EmbedResult> {
    const embeddings: number[][] = [];
    for (const text of batches(texts, this.opts.batchSize ?? 100)) {
      const out = (await withEmbedRetries(
        "workers-ai",
        this.opts.maxRetries ?? 2,
        () => this.binding.run(this.model, { text }),
        opts.signal,
      )) as { data?: number[][] } | null;
      const data = out?.data;
      if (!Array.isArray(data) || data.length !== text.length)
        throw new EmbedderError(`Workers AI ${this.model} returned no embedding per text`);
      for (const e of data) {
        if (e.length !== this.dimensions)
          throw new EmbedderError(
            `Workers AI ${this.model} returned ${e.length} dimensions, expected ${this.dimensions}`,
          );
        embeddings.push(e);
      }
    }
    return { embeddings };
  }
}
