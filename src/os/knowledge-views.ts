import type { ContentRecord, ContentStatus } from "../knowledge/content.js";
import type { KnowledgeDocument } from "../knowledge/document.js";
import type { KnowledgeConfigInfo } from "../knowledge/knowledge.js";
import { agnoDatetimeOf } from "./wire/agno-object.js";
import type { ContentResponse, KnowledgeConfigResponse, VectorSearchResult } from "./wire/knowledge.js";

/** agno's ContentResponseSchema.from_dict: status defaulted to processing, size as text ("0" when unknown). */
export function contentView(record: ContentRecord): ContentResponse {
  const at = (s: number | null) => (s === null || s === undefined ? null : agnoDatetimeOf(s * 1000));
  return {
    id: record.id,
    name: record.name ?? null,
    description: record.description ?? null,
    type: record.type ?? null,
    size: record.size ? String(record.size) : "0",
    linked_to: null,
    metadata: record.metadata ?? null,
    access_count: null,
    status: statusOf(record.status),
    status_message: record.status_message ?? null,
    created_at: at(record.created_at),
    updated_at: at(record.updated_at ?? record.created_at),
  };
}

/** agno reads any stored status that mentions failed or completed as such, anything else as processing. */
export function statusOf(status: string | null | undefined): ContentStatus {
  const s = (status ?? "").toLowerCase();
  return s.includes("failed") ? "failed" : s.includes("completed") ? "completed" : "processing";
}

/** agno's VectorSearchResult.from_document. */
export function searchResultView(doc: KnowledgeDocument): VectorSearchResult {
  return {
    id: doc.id ?? null,
    content: doc.content,
    name: doc.name ?? null,
    meta_data: doc.meta_data ?? null,
    usage: doc.usage ?? null,
    reranking_score:
      doc.reranking_score === undefined ? null : Math.min(1, Math.max(0, Number(doc.reranking_score) || 0)),
    content_id: doc.content_id ?? null,
    content_origin: doc.content_origin ?? null,
    size: doc.size ?? null,
  };
}

/** agno's ConfigResponseSchema from a knowledge base's config; no remote content sources are served here. */
export function knowledgeConfigView(info: KnowledgeConfigInfo, filters: string[]): KnowledgeConfigResponse {
  return {
    readers: Object.fromEntries(
      Object.entries(info.readers).map(([key, r]) => [
        key,
        { id: r.id, name: r.name ?? null, description: r.description ?? null, chunkers: r.chunkers ?? [] },
      ]),
    ),
    readersForType: info.readersForType,
    chunkers: Object.fromEntries(
      Object.entries(info.chunkers).map(([key, ch]) => [
        key,
        { key: ch.key, name: ch.name ?? null, description: ch.description ?? null, metadata: ch.metadata ?? {} },
      ]),
    ),
    filters,
    vector_dbs: info.vector_dbs.map((v) => ({
      id: v.id,
      name: v.name ?? null,
      description: v.description ?? null,
      search_types: [...v.search_types],
    })),
    remote_content_sources: null,
  };
}
