/**
 * Turns texts into vectors. One call embeds a batch; the adapter splits into the provider's
 * batch size and retries 429/5xx as model calls do (see embedders/ai-sdk-embedder.ts).
 */
export interface Embedder {
  /** "provider:model-id", shown by /knowledge/config and stored with documents */
  readonly id: string;
  /** length of every vector it returns */
  readonly dimensions: number;
  embed(texts: string[], opts?: { signal?: AbortSignal }): Promise<EmbedResult>;
}

export interface EmbedResult {
  embeddings: number[][];
  usage?: { tokens?: number };
}
