import type { KnowledgeDocument } from "../document.js";
import { makeChunk, SizedChunking } from "./chunk-base.js";

/**
 * agno's DocumentChunking: paragraphs (blank-line separated) packed into chunks of at most
 * `chunkSize`; a paragraph longer than that is cut by words. PDF's default.
 */
export class DocumentChunking extends SizedChunking {
  readonly id = "DocumentChunker";
  chunk(doc: KnowledgeDocument): KnowledgeDocument[] {
    if (doc.content.length <= this.chunkSize) return [doc];
    const pieces: string[] = [];
    for (const para of doc.content.split(/\n\s*\n/)) {
      const p = para.trim();
      if (!p) continue;
      if (p.length <= this.chunkSize) {
        pieces.push(p);
        continue;
      }
      let cur = "";
      for (const word of p.split(/\s+/)) {
        if (cur && cur.length + 1 + word.length > this.chunkSize) {
          pieces.push(cur);
          cur = "";
        }
        cur = cur ? `${cur} ${word}` : word.slice(0, this.chunkSize);
      }
      if (cur) pieces.push(cur);
    }
    const texts: string[] = [];
    let cur = "";
    for (const p of pieces) {
      if (cur && cur.length + 2 + p.length > this.chunkSize) {
        texts.push(cur);
        cur = "";
      }
      cur = cur ? `${cur}\n\n${p}` : p;
    }
    if (cur) texts.push(cur);
    const out = texts.map((t, i) => makeChunk(doc, i + 1, t));
    if (this.overlap > 0) {
      for (let i = out.length - 1; i > 0; i--) {
        const prev = texts[i - 1]!.slice(-this.overlap);
        out[i] = makeChunk(doc, i + 1, prev + texts[i]!);
      }
    }
    return out;
  }
}
