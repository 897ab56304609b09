import { describe, expect, it } from "vitest";
import { ValidationError } from "../../src/errors.js";
import {
  DocumentChunking,
  FixedSizeChunking,
  makeChunker,
  MarkdownChunking,
  RecursiveChunking,
  RowChunking,
} from "../../src/knowledge/chunking/index.js";
import type { KnowledgeDocument } from "../../src/knowledge/document.js";

const doc = (content: string, extra: Partial<KnowledgeDocument> = {}): KnowledgeDocument => ({
  id: "d",
  name: "doc",
  content,
  meta_data: { source: "s" },
  ...extra,
});

describe("chunking (agno's semantics)", () => {
  it("fixed size: cuts at whitespace, overlaps, numbers chunks 1.. with chunk_size and <id>_<n> ids", () => {
    const chunks = new FixedSizeChunking({ chunkSize: 12, overlap: 4 }).chunk(doc("alpha beta gamma delta epsilon"));
    expect(chunks.map((c) => c.content)).toEqual(["alpha beta", "beta gamma", "amma delta", "elta epsilon"]);
    expect(chunks.map((c) => c.id)).toEqual(["d_1", "d_2", "d_3", "d_4"]);
    expect(chunks[1]!.meta_data).toEqual({ source: "s", chunk: 2, chunk_size: 10 });
    expect(chunks.every((c) => c.name === "doc")).toBe(true);
  });

  it("fixed size: a word longer than the chunk is cut; whitespace runs are cleaned as agno does", () => {
    expect(new FixedSizeChunking({ chunkSize: 4 }).chunk(doc("abcdefghij")).map((c) => c.content)).toEqual([
      "abcd",
      "efgh",
      "ij",
    ]);
    expect(new FixedSizeChunking({ chunkSize: 100 }).chunk(doc("a\n\n\nb   c")).map((c) => c.content)).toEqual([
      "a b c",
    ]);
  });

  it("ids fall back to the name, then a content digest", () => {
    expect(new FixedSizeChunking({ chunkSize: 50 }).chunk(doc("x y", { id: undefined }))[0]!.id).toBe("doc_1");
    const anon = new FixedSizeChunking({ chunkSize: 50 }).chunk(doc("x y", { id: undefined, name: undefined }))[0]!.id;
    expect(anon).toMatch(/^chunk_[0-9a-f]{12}_1$/);
    expect(new FixedSizeChunking({ chunkSize: 50 }).chunk(doc("x y", { id: undefined, name: undefined }))[0]!.id).toBe(
      anon,
    );
  });

  it("recursive: ends chunks at newlines (else full stops); a document that fits is returned whole", () => {
    const text = "First line here\nSecond one. Third bit\nFourth";
    const chunks = new RecursiveChunking({ chunkSize: 20 }).chunk(doc(text));
    // the second window holds no newline, so it ends at its full stop; the rest fits in one
    expect(chunks.map((c) => c.content)).toEqual(["First line here ", "Second one.", " Third bit Fourth"]);
    expect(chunks.map((c) => c.meta_data.chunk)).toEqual([1, 2, 3]);
    const small = doc("short");
    expect(new RecursiveChunking({ chunkSize: 20 }).chunk(small)).toEqual([small]);
  });

  it("markdown: sections at headings packed to the size, a long section split with its heading repeated", () => {
    const md = [
      "# Intro",
      "Welcome.",
      "## Refunds",
      "Refunds take five days.",
      "## Shipping",
      "Para one about shipping.\n\nPara two about shipping rates and more.",
    ].join("\n\n");
    const chunks = new MarkdownChunking({ chunkSize: 60 }).chunk(doc(md));
    // sections that fit together share a chunk
    expect(chunks.map((c) => c.content)).toEqual([
      "# Intro\n\nWelcome.\n\n## Refunds\n\nRefunds take five days.",
      "## Shipping\n\nPara one about shipping.",
      "## Shipping\n\nPara two about shipping rates and more.",
    ]);
    expect(chunks.map((c) => c.id)).toEqual(["d_1", "d_2", "d_3"]);
    const byHeading = new MarkdownChunking({ chunkSize: 1000, splitOnHeadings: 1 }).chunk(doc(md));
    expect(byHeading).toHaveLength(1);
    expect(new MarkdownChunking({ chunkSize: 1000, splitOnHeadings: true }).chunk(doc(md))).toHaveLength(3);
  });

  it("markdown: a heading inside a code fence does not split", () => {
    const md = "# A\n\n```\n# not a heading\n```\n\n# B\n\ntext";
    const chunks = new MarkdownChunking({ chunkSize: 1000, splitOnHeadings: true }).chunk(doc(md));
    expect(chunks.map((c) => c.content)).toEqual(["# A\n\n```\n# not a heading\n```", "# B\n\ntext"]);
  });

  it("document: paragraphs packed; row: one chunk per line", () => {
    const chunks = new DocumentChunking({ chunkSize: 20 }).chunk(doc("one two\n\nthree four\n\nfive six seven eight"));
    expect(chunks.map((c) => c.content)).toEqual(["one two\n\nthree four", "five six seven eight"]);
    expect(new RowChunking().chunk(doc("a, b\nc, d\n")).map((c) => [c.id, c.content])).toEqual([
      ["d_1", "a, b"],
      ["d_2", "c, d"],
    ]);
  });

  it("refuses an overlap not below the size, and unknown chunker keys, as ValidationErrors", () => {
    expect(() => new FixedSizeChunking({ chunkSize: 10, overlap: 10 })).toThrow(ValidationError);
    expect(() => makeChunker("SemanticChunker")).toThrow(/unsupported chunking strategy/);
    expect(makeChunker("RecursiveChunker", { chunkSize: 100 }).chunkSize).toBe(100);
  });
});
