/**
 * agno's `Document` (knowledge/document/base.py): one chunk of a content, what the vector db
 * stores and a search returns. Field names stay agno's (`meta_data`, `content_id`) since they
 * reach the wire in run `references` and `/knowledge/search` as they are.
 */
export interface KnowledgeDocument {
  content: string;
  id?: string;
  name?: string;
  meta_data: Record<string, unknown>;
  /** the embedder's id (agno keeps the object; on the wire only its name matters) */
  embedder?: string;
  embedding?: number[];
  usage?: Record<string, unknown>;
  reranking_score?: number;
  content_id?: string;
  content_origin?: string;
  size?: number;
}

/** agno's `Document.to_dict()`: name, meta_data and content (what references and tool results carry). */
export function documentToDict(doc: KnowledgeDocument): {
  name?: string;
  meta_data: Record<string, unknown>;
  content: string;
} {
  return { ...(doc.name !== undefined ? { name: doc.name } : {}), meta_data: doc.meta_data, content: doc.content };
}
