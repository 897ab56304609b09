import type { KnowledgeDocument } from "./document.js";

/** agno's Reranker (knowledge/reranker/base.py): reorders search results, setting `reranking_score`. */
export interface Reranker {
  readonly id: string;
  rerank(query: string, documents: KnowledgeDocument[]): Promise<KnowledgeDocument[]>;
}
