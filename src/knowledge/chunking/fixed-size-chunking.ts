import type { KnowledgeDocument } from "../document.js";
import { cleanText, makeChunk, SizedChunking } from "./chunk-base.js";

const BREAK = new Set([" ", "\n", "\r", "\t"]);

/**
 * agno's FixedSizeChunking: cleaned text cut every `chunkSize` characters, moved back to the last
 * whitespace so no word is split (unless one word fills the chunk), each chunk starting `overlap`
 * characters before the previous one ended.
 */
export class FixedSizeChunking extends SizedChunking {
  readonly id = "FixedSizeChunker";
  chunk(doc: KnowledgeDocument): KnowledgeDocument[] {
    const content = cleanText(doc.content);
    const out: KnowledgeDocument[] = [];
    let start = 0;
    let n = 1;
    while (start < content.length) {
      let end = Math.min(start + this.chunkSize, content.length);
      if (end < content.length) while (end > start && !BREAK.has(content[end]!)) end--;
      if (end === start) end = start + this.chunkSize;
      out.push(makeChunk(doc, n++, content.slice(start, end)));
      if (end >= content.length) break;
      start = Math.max(start + 1, end - this.overlap);
    }
    return out;
  }
}
