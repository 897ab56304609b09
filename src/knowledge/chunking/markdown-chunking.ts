import { ValidationError } from "../../errors.js";
import type { ChunkingStrategy } from "../chunking.js";
import type { KnowledgeDocument } from "../document.js";
import { checkSizes, DEFAULT_CHUNK_SIZE, makeChunk } from "./chunk-base.js";

const HEADING = /^#{1,6}\s+/;

/**
 * agno's MarkdownChunking: the document split into sections at headings, a section longer than
 * `chunkSize` split by paragraphs (then words) with its heading repeated in each piece, and
 * sections packed into chunks of at most `chunkSize`. With `splitOnHeadings` (true, or the
 * deepest heading level that splits) every section is its own chunk. `overlap` prefixes each
 * chunk with the previous chunk's last characters. Headings inside code fences do not split.
 * (agno partitions with `unstructured`'s chunk_by_title; this is the same structure without it.)
 */
export class MarkdownChunking implements ChunkingStrategy {
  readonly id = "MarkdownChunker";
  readonly chunkSize: number;
  readonly overlap: number;
  readonly splitOnHeadings: boolean | number;

  constructor(opts: { chunkSize?: number; overlap?: number; splitOnHeadings?: boolean | number } = {}) {
    this.chunkSize = opts.chunkSize ?? DEFAULT_CHUNK_SIZE;
    this.overlap = opts.overlap ?? 0;
    this.splitOnHeadings = opts.splitOnHeadings ?? false;
    checkSizes(this.chunkSize, this.overlap);
    if (typeof this.splitOnHeadings === "number" && !(this.splitOnHeadings >= 1 && this.splitOnHeadings <= 6))
      throw new ValidationError("splitOnHeadings must be between 1 and 6 when a number", "split_on_headings");
  }

  /** sections, each starting at a heading of a splitting level (the first may have none) */
  private sections(content: string): string[] {
    const maxLevel = typeof this.splitOnHeadings === "number" ? this.splitOnHeadings : 6;
    const sections: string[] = [];
    let cur: string[] = [];
    let fence = false;
    for (const line of content.split("\n")) {
      if (/^\s*(```|~~~)/.test(line)) fence = !fence;
      const m = !fence && /^(#{1,6})\s+\S/.exec(line);
      if (m && m[1]!.length <= maxLevel && cur.some((l) => l.trim() !== "")) {
        sections.push(cur.join("\n").trim());
        cur = [];
      }
      cur.push(line);
    }
    if (cur.some((l) => l.trim() !== "")) sections.push(cur.join("\n").trim());
    return sections.length ? sections : [content];
  }

  /** agno's _split_large_section */
  private splitLarge(section: string): string[] {
    if (section.length <= this.chunkSize) return [section];
    const lines = section.split("\n");
    const heading = lines.length && HEADING.test(lines[0]!) ? lines[0]! : "";
    const body = (heading ? lines.slice(1) : lines).join("\n").trim();
    if (!body) return [section];
    const withHeading = (text: string) => (heading ? `${heading}\n\n${text}` : text).trim();
    const headingSize = heading ? heading.length + 2 : 0;
    const chunks: string[] = [];
    let current: string[] = [];
    const size = () => current.reduce((a, p) => a + p.length, 0) + current.length * 2;
    for (const raw of body.split(/\n\n+/)) {
      const para = raw.trim();
      if (!para) continue;
      if (current.length && headingSize + size() + para.length + 2 > this.chunkSize) {
        chunks.push(withHeading(current.join("\n\n")));
        current = [];
      }
      if (para.length + headingSize > this.chunkSize) {
        if (current.length) {
          chunks.push(withHeading(current.join("\n\n")));
          current = [];
        }
        const available = Math.max(1, this.chunkSize - headingSize);
        let words: string[] = [];
        let len = 0;
        for (const word of para.split(/\s+/)) {
          if (len + word.length + 1 > available && words.length) {
            chunks.push(withHeading(words.join(" ")));
            words = [];
            len = 0;
          }
          words.push(word);
          len += word.length + 1;
        }
        if (words.length) current.push(words.join(" "));
      } else current.push(para);
    }
    if (current.length) chunks.push(withHeading(current.join("\n\n")));
    return chunks.length ? chunks : [section];
  }

  chunk(doc: KnowledgeDocument): KnowledgeDocument[] {
    if (!doc.content) return [doc];
    if (!this.splitOnHeadings && doc.content.length <= this.chunkSize) return [doc];
    const texts: string[] = [];
    if (this.splitOnHeadings) {
      for (const s of this.sections(doc.content)) texts.push(...this.splitLarge(s));
    } else {
      let current: string[] = [];
      let size = 0;
      for (const piece of this.sections(doc.content).flatMap((s) => this.splitLarge(s))) {
        const s = piece.trim();
        if (current.length && size + s.length > this.chunkSize) {
          texts.push(current.join("\n\n"));
          current = [];
          size = 0;
        }
        current.push(s);
        size += s.length;
      }
      if (current.length) texts.push(current.join("\n\n"));
    }
    return texts.map((t, i) =>
      makeChunk(doc, i + 1, this.overlap > 0 && i > 0 ? texts[i - 1]!.slice(-this.overlap) + t : t),
    );
  }
}
