import { ValidationError } from "../../errors.js";
import type { ChunkingStrategy } from "../chunking.js";
import { DocumentChunking } from "./document-chunking.js";
import { FixedSizeChunking } from "./fixed-size-chunking.js";
import { MarkdownChunking } from "./markdown-chunking.js";
import { RecursiveChunking } from "./recursive-chunking.js";
import { RowChunking } from "./row-chunking.js";

/** The chunkers a content may name (agno's ChunkingStrategyType keys), with what /knowledge/config shows. */
export const CHUNKERS: Record<string, { name: string; description: string }> = {
  FixedSizeChunker: {
    name: "FixedSizeChunker",
    description: "Chunking strategy that splits text into fixed-size chunks with optional overlap",
  },
  RecursiveChunker: {
    name: "RecursiveChunker",
    description: "Chunking strategy that recursively splits text into chunks by finding natural break points",
  },
  MarkdownChunker: {
    name: "MarkdownChunker",
    description: "A chunking strategy that splits markdown based on structure like headers, paragraphs and sections",
  },
  DocumentChunker: {
    name: "DocumentChunker",
    description: "A chunking strategy that splits text based on document structure like paragraphs and sections",
  },
  RowChunker: { name: "RowChunker", description: "RowChunking chunking strategy" },
};

/** A chunker by its key; an unknown key is a ValidationError naming the valid ones. */
export function makeChunker(key: string, opts: { chunkSize?: number; overlap?: number } = {}): ChunkingStrategy {
  switch (key) {
    case "FixedSizeChunker":
      return new FixedSizeChunking(opts);
    case "RecursiveChunker":
      return new RecursiveChunking(opts);
    case "MarkdownChunker":
      return new MarkdownChunking(opts);
    case "DocumentChunker":
      return new DocumentChunking(opts);
    case "RowChunker":
      return new RowChunking();
    default:
      throw new ValidationError(
        `unsupported chunking strategy ${JSON.stringify(key)}: one of ${Object.keys(CHUNKERS).join(", ")}`,
        "chunker",
      );
  }
}
