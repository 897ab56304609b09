import { ValidationError } from "../../errors.js";
import type { ChunkingStrategy } from "../chunking.js";
import type { KnowledgeDocument } from "../document.js";

/** agno's ChunkingStrategy.clean_text: runs of whitespace (newlines too, as Python's \s) become one space. */
export function cleanText(text: string): string {
  return text.replace(/\n+/g, "\n").replace(/\s+/g, " ");
}

/** A short deterministic digest (FNV-1a, hex) standing in for agno's md5 prefix in ids of unnamed documents. */
function digest(text: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193) >>> 0;
    h2 = Math.imul(h2 ^ c, 0x5bd1e995) >>> 0;
  }
  return (h1.toString(16).padStart(8, "0") + h2.toString(16).padStart(8, "0")).slice(0, 12);
}

/** agno's _generate_chunk_id: `<doc id>_<n>`, else `<doc name>_<n>`, else `chunk_<hash>_<n>`. */
export function chunkId(doc: KnowledgeDocument, chunkNumber: number, content?: string): string {
  const suffix = `_${chunkNumber}`;
  if (doc.id) return `${doc.id}${suffix}`;
  if (doc.name) return `${doc.name}${suffix}`;
  return `chunk_${digest(content ?? doc.content)}${suffix}`;
}

/** One chunk of `doc` as agno makes it: meta_data with `chunk` (1-based) and `chunk_size`. */
export function makeChunk(doc: KnowledgeDocument, chunkNumber: number, content: string): KnowledgeDocument {
  return {
    id: chunkId(doc, chunkNumber, content),
    ...(doc.name !== undefined ? { name: doc.name } : {}),
    meta_data: { ...doc.meta_data, chunk: chunkNumber, chunk_size: content.length },
    content,
    ...(doc.content_id !== undefined ? { content_id: doc.content_id } : {}),
  };
}

export function checkSizes(chunkSize: number, overlap: number): void {
  if (!Number.isInteger(chunkSize) || chunkSize < 1)
    throw new ValidationError("chunk_size must be a positive whole number", "chunk_size");
  if (!Number.isInteger(overlap) || overlap < 0)
    throw new ValidationError("chunk_overlap must be a whole number of at least 0", "chunk_overlap");
  if (overlap >= chunkSize)
    throw new ValidationError(`overlap (${overlap}) must be less than chunk size (${chunkSize})`, "chunk_overlap");
}

/** agno's default chunk size for every reader. */
export const DEFAULT_CHUNK_SIZE = 5000;

/** A chunker cut by size with an overlap (agno's chunk_size, overlap): the sizes, defaulted and checked once. */
export abstract class SizedChunking implements ChunkingStrategy {
  abstract readonly id: string;
  readonly chunkSize: number;
  readonly overlap: number;

  constructor(opts: { chunkSize?: number; overlap?: number } = {}) {
    this.chunkSize = opts.chunkSize ?? DEFAULT_CHUNK_SIZE;
    this.overlap = opts.overlap ?? 0;
    checkSizes(this.chunkSize, this.overlap);
  }

  abstract chunk(doc: KnowledgeDocument): KnowledgeDocument[];
}
