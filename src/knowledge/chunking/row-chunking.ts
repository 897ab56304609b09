import type { ChunkingStrategy } from "../chunking.js";
import type { KnowledgeDocument } from "../document.js";
import { makeChunk } from "./chunk-base.js";

/** agno's RowChunking: one chunk per non-empty line (a CSV row). CSV's default. */
export class RowChunking implements ChunkingStrategy {
  readonly id = "RowChunker";
  readonly chunkSize = 0;
  readonly overlap = 0;
  constructor(private readonly opts: { skipHeader?: boolean } = {}) {}

  chunk(doc: KnowledgeDocument): KnowledgeDocument[] {
    const rows = doc.content.split(/\r?\n/).filter((r) => r.trim() !== "");
    const body = this.opts.skipHeader ? rows.slice(1) : rows;
    return body.map((row, i) => makeChunk(doc, i + 1, row.trim()));
  }
}
