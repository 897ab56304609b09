import type { KnowledgeDocument } from "./document.js";

/**
 * agno's ChunkingStrategy (knowledge/chunking/strategy.py): splits a document into chunks, each
 * with `meta_data.chunk` (1-based), `chunk_size`, and id `<doc id>_<chunk>` as agno names them.
 */
export interface ChunkingStrategy {
  /** agno's strategy key: "FixedSizeChunker", "RecursiveChunker", "MarkdownChunker", … */
  readonly id: string;
  readonly chunkSize: number;
  readonly overlap: number;
  chunk(doc: KnowledgeDocument): KnowledgeDocument[];
}
