import type { KnowledgeDocument } from "../document.js";
import { cleanText, makeChunk, SizedChunking } from "./chunk-base.js";

/**
 * agno's RecursiveChunking: each chunk ends at the last newline (else the last full stop) within
 * `chunkSize`; the next starts `overlap` characters earlier. A document that fits is returned whole.
 */
export class RecursiveChunking extends SizedChunking {
  readonly id = "RecursiveChunker";
  chunk(doc: KnowledgeDocument): KnowledgeDocument[] {
    const content = doc.content;
    if (content.length <= this.chunkSize) return [doc];
    const out: KnowledgeDocument[] = [];
    let start = 0;
    let n = 1;
    while (start < content.length) {
      let end = Math.min(start + this.chunkSize, content.length);
      if (end < content.length) {
        for (const sep of ["\n", "."]) {
          const last = content.slice(start, end).lastIndexOf(sep);
          if (last !== -1) {
            end = start + last + 1;
            break;
          }
        }
      }
      out.push(makeChunk(doc, n++, cleanText(content.slice(start, end))));
      let next = end - this.overlap;
      if (next <= start) next = Math.min(content.length, start + Math.max(1, Math.floor(this.chunkSize / 10)));
      start = next;
    }
    return out;
  }
}
