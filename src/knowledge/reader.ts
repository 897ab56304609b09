import type { KnowledgeDocument } from "./document.js";

/** What a reader gets: the bytes or text of one content, and its name and type. */
export interface ReaderInput {
  name: string;
  bytes?: Uint8Array;
  text?: string;
  contentType?: string;
  fileName?: string;
  /** the content's metadata, copied into every document */
  metadata?: Record<string, unknown>;
}

/**
 * agno's Reader (knowledge/reader/base.py): turns one content into documents (usually one per
 * file, or one per page/row), before chunking.
 */
export interface Reader {
  /** agno's reader key: "text", "markdown", "pdf", … */
  readonly id: string;
  readonly name: string;
  readonly description: string;
  /** file extensions (".md") and MIME types it accepts */
  readonly accepts: { extensions: string[]; contentTypes: string[] };
  /** the chunking strategy agno's reader defaults to */
  readonly defaultChunker: string;
  /** the chunker keys it supports, its default first */
  readonly chunkers: string[];
  read(input: ReaderInput): Promise<KnowledgeDocument[]>;
}
