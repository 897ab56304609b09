import { describe, expect, it } from "vitest";
import { ValidationError } from "../../src/errors.js";
import {
  CsvReader,
  defaultReaders,
  HtmlReader,
  JsonReader,
  MarkdownReader,
  parseCsv,
  PdfReader,
  readerFor,
  TextReader,
} from "../../src/knowledge/readers/index.js";
import { makePdf } from "../support/knowledge-pdf.js";

const enc = (s: string) => new TextEncoder().encode(s);

describe("knowledge readers", () => {
  it("text: one document with the content's metadata, a BOM dropped", async () => {
    const docs = await new TextReader().read({
      name: "notes.txt",
      bytes: enc("\uFEFFhello world"),
      metadata: { k: 1 },
    });
    expect(docs).toHaveLength(1);
    expect(docs[0]).toMatchObject({ name: "notes", content: "hello world", meta_data: { k: 1 } });
    expect(await new TextReader().read({ name: "empty", text: "  \n" })).toEqual([]);
  });

  it("markdown: the whole file, unchanged, for the markdown chunker", async () => {
    const md = "# Title\n\nPara one.\n\n## Sub\n\n- item";
    const [doc] = await new MarkdownReader().read({ name: "guide.md", text: md });
    expect(doc!.content).toBe(md);
    expect(new MarkdownReader().defaultChunker).toBe("MarkdownChunker");
  });

  it("html: scripts, styles and tags gone; headings, lists, paragraphs and entities kept as text", async () => {
    const html = `<!doctype html><html><head><title>Refunds &amp; returns</title><style>p{color:red}</style>
      <script>alert("x <b>bold</b>")</script></head><body><!-- hidden -->
      <h1>Refund policy</h1><p>Refunds take <b>5</b>&nbsp;days.</p><ul><li>Card</li><li>Bank &#x2014; wire</li></ul>
      <table><tr><td>a</td><td>b</td></tr></table><noscript>enable js</noscript></body></html>`;
    const [doc] = await new HtmlReader().read({ name: "page.html", text: html });
    expect(doc!.content).toBe("# Refund policy\n\nRefunds take 5 days.\n\n- Card\n\n- Bank — wire\n\na | b");
    expect(doc!.meta_data.title).toBe("Refunds & returns");
    expect(doc!.content).not.toMatch(/alert|color|enable js|hidden|</);
  });

  it("json: one document per list item with its page, a malformed file a ValidationError", async () => {
    const docs = await new JsonReader().read({ name: "items.json", text: '[{"a":1},{"b":"two"}]' });
    expect(docs.map((d) => [d.content, d.meta_data.page])).toEqual([
      ['{"a":1}', 1],
      ['{"b":"two"}', 2],
    ]);
    expect((await new JsonReader().read({ name: "o", text: '{"x":true}' })).map((d) => d.content)).toEqual([
      '{"x":true}',
    ]);
    await expect(new JsonReader().read({ name: "bad", text: "{nope" })).rejects.toBeInstanceOf(ValidationError);
  });

  it("csv: quoted fields with commas, quotes and line breaks; rows as lines", async () => {
    expect(parseCsv('a,"b, c","say ""hi""","multi\nline"\r\n1,2,3,4\n\n')).toEqual([
      ["a", "b, c", 'say "hi"', "multi\nline"],
      ["1", "2", "3", "4"],
    ]);
    const [doc] = await new CsvReader().read({ name: "t.csv", text: "name,city\nAda,London\nLin,Paris\n" });
    expect(doc!.content).toBe("name, city\nAda, London\nLin, Paris");
  });

  it("pdf: one document per page with its page number, extracted from a real PDF file", async () => {
    const bytes = makePdf([
      ["Invoices are due in 30 days.", "Late fees (2%) apply."],
      [],
      ["Contact billing@example.com"],
    ]);
    const docs = await new PdfReader().read({ name: "terms.pdf", bytes, metadata: { source: "upload" } });
    expect(docs.map((d) => [d.id, d.meta_data.page, d.content])).toEqual([
      ["terms_1", 1, "Invoices are due in 30 days.\nLate fees (2%) apply."],
      ["terms_3", 3, "Contact billing@example.com"],
    ]);
    expect(docs[0]!.meta_data.source).toBe("upload");
    // the bytes the caller holds are still usable (pdf.js detaches what it is given)
    expect(bytes.byteLength).toBeGreaterThan(100);
  });

  it("pdf: bytes that are not a PDF, or a broken one, are a ValidationError", async () => {
    await expect(new PdfReader().read({ name: "x.pdf", bytes: enc("hello") })).rejects.toBeInstanceOf(ValidationError);
    await expect(new PdfReader().read({ name: "x.pdf", bytes: enc("%PDF-1.4\ngarbage") })).rejects.toBeInstanceOf(
      ValidationError,
    );
  });

  it("picks the reader by MIME type, then extension, else text; an unknown binary type has none", () => {
    const readers = defaultReaders();
    expect(readerFor(readers, { contentType: "application/pdf" })!.id).toBe("pdf");
    expect(readerFor(readers, { contentType: "text/markdown; charset=utf-8" })!.id).toBe("markdown");
    expect(readerFor(readers, { fileName: "a.CSV" })!.id).toBe("csv");
    expect(readerFor(readers, { contentType: "application/octet-stream", fileName: "page.htm" })!.id).toBe("html");
    expect(readerFor(readers, { fileName: "readme" })!.id).toBe("text");
    expect(readerFor(readers, { contentType: "image/png", fileName: "x.png" })).toBeUndefined();
  });
});
