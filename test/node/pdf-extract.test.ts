import { readdirSync, readFileSync } from "node:fs";
import { deflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { ValidationError } from "../../src/errors.js";
import { extractPdfText } from "../../src/knowledge/readers/pdf/index.js";
import { PdfReader } from "../../src/knowledge/readers/pdf-reader.js";
import { pdfjsEngine } from "../../src/knowledge/readers/pdfjs-engine.js";
import { makePdf } from "../support/knowledge-pdf.js";

const FIXTURES = new URL("../fixtures/pdf/", import.meta.url);
const fixture = (name: string) => new Uint8Array(readFileSync(new URL(name, FIXTURES)));

/** Text compared as its characters in order: whitespace dropped, compatibility forms folded (ligatures). */
const chars = (s: string) => [...s.normalize("NFKC").replace(/\s+/g, "")];

/** 2·LCS / (|a| + |b|): 1 for the same characters in the same order. */
function similarity(a: string[], b: string[]): number {
  if (!a.length && !b.length) return 1;
  let prev = new Uint32Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    const cur = new Uint32Array(b.length + 1);
    for (let j = 1; j <= b.length; j++)
      cur[j] = a[i - 1] === b[j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, cur[j - 1]!);
    prev = cur;
  }
  return (2 * prev[b.length]!) / (a.length + b.length);
}

const enc = (s: string) => new TextEncoder().encode(s);

/**
 * A PDF from its objects (numbered from 1; object 1 the catalog), each a dictionary string or a
 * stream given as [dictionary, data]. `xref: "wrong"` writes every offset 7 bytes off.
 */
function buildPdf(objects: Array<string | [string, Uint8Array]>, opts: { xref?: "wrong"; trailer?: string } = {}) {
  const parts: Uint8Array[] = [enc("%PDF-1.7\n")];
  let length = parts[0]!.length;
  const push = (b: Uint8Array) => {
    parts.push(b);
    length += b.length;
  };
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(length);
    if (typeof o === "string") push(enc(`${i + 1} 0 obj\n${o}\nendobj\n`));
    else {
      push(enc(`${i + 1} 0 obj\n${o[0].replace(/>>\s*$/, ` /Length ${o[1].length} >>`)}\nstream\n`));
      push(o[1]);
      push(enc("\nendstream\nendobj\n"));
    }
  });
  const xref = length;
  const shift = opts.xref === "wrong" ? 7 : 0;
  let table = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const off of offsets) table += `${String(off + shift).padStart(10, "0")} 00000 n \n`;
  push(
    enc(
      `${table}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R ${opts.trailer ?? ""} >>\nstartxref\n${xref}\n%%EOF\n`,
    ),
  );
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A one-page document: the page's content stream and its resources dictionary (objects from 4 on). */
function onePage(
  content: string | Uint8Array,
  resources: string,
  more: Array<string | [string, Uint8Array]> = [],
  filter = "",
) {
  const data = typeof content === "string" ? enc(content) : content;
  return buildPdf([
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources ${resources} /Contents 4 0 R >>`,
    [`<< ${filter} >>`, data],
    ...more,
  ]);
}

const HELVETICA = "<< /Font << /F1 5 0 R >> >>";
const HELVETICA_FONT = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>";

describe("the built-in PDF text extractor", () => {
  // Each fixture page's text, as characters in order, is at least this similar to pdf.js's
  // (2·LCS over both lengths, whitespace ignored): what differs is right-to-left ordering and
  // the odd glyph pdf.js maps through an embedded font program.
  const MIN_SIMILARITY = 0.95;
  const files = readdirSync(FIXTURES).filter((f) => f.endsWith(".pdf") && f !== "issue6010_1.pdf");

  it.each(files)("reads %s as pdf.js does, page by page", async (file) => {
    const ours = await extractPdfText(fixture(file));
    const theirs = await pdfjsEngine.extractPages(fixture(file));
    expect(ours).toHaveLength(theirs.length);
    const scores = ours.map((page, i) => similarity(chars(page), chars(theirs[i]!)));
    expect(chars(theirs.join("")).length).toBeGreaterThan(0);
    for (const s of scores) expect(s).toBeGreaterThanOrEqual(MIN_SIMILARITY);
  });

  it("reads an LZW stream and ASCII85 streams exactly", async () => {
    expect(await extractPdfText(fixture("bug864847.pdf"))).toEqual(["Hello, 864847"]);
    expect((await extractPdfText(fixture("bug1057544.pdf")))[0]).toMatch(/^An Annual Report marks the\n/);
  });

  it("reads makePdf's pages exactly: lines in order, escaped parentheses, an empty page", async () => {
    const bytes = makePdf([["Invoices are due in 30 days.", "Late fees (2%) apply."], [], ["a\\b"]]);
    expect(await extractPdfText(bytes)).toEqual(["Invoices are due in 30 days.\nLate fees (2%) apply.", "", "a\\b"]);
  });

  it("TJ: a large negative kern is a space, a small one is not; ' and \" start new lines", async () => {
    const pdf = onePage(
      "BT /F1 12 Tf 14 TL 72 720 Td [(Kern)-30(ing)-400(works)] TJ (next line) ' 1 0 (third) \" ET",
      HELVETICA,
      [HELVETICA_FONT],
    );
    expect(await extractPdfText(pdf)).toEqual(["Kerning works\nnext line\nthird"]);
  });

  it("words placed apart on one line get a space; Tm and T* place lines", async () => {
    const pdf = onePage(
      "BT /F1 10 Tf 12 TL 1 0 0 1 72 700 Tm (Total:) Tj 60 0 Td (42 EUR) Tj T* (due now) Tj ET",
      HELVETICA,
      [HELVETICA_FONT],
    );
    expect(await extractPdfText(pdf)).toEqual(["Total: 42 EUR\ndue now"]);
  });

  it("Differences glyph names (AGL, uniXXXX, ligatures) and drops unmappable codes", async () => {
    const font =
      "<< /Type /Font /Subtype /Type1 /BaseFont /Foo /Encoding << /Type /Encoding /BaseEncoding /WinAnsiEncoding " +
      "/Differences [1 /eacute /uni20AC /fi /g17 /Scaron /quotedblleft /quotedblright] >> >>";
    const pdf = onePage("BT /F1 12 Tf 72 700 Td (caf\\001 \\002 \\003x\\004 \\005 \\006A\\007) Tj ET", HELVETICA, [
      font,
    ]);
    expect(await extractPdfText(pdf)).toEqual(["café € fix Š “A”"]);
  });

  it("Type0 Identity-H text through a ToUnicode CMap (bfchar, bfrange, array form)", async () => {
    const cmap = enc(
      "/CIDInit /ProcSet findresource begin 12 dict begin begincmap 1 begincodespacerange <0000> <FFFF> endcodespacerange " +
        "2 beginbfchar <0001> <0048> <0002> <D83DDE00> endbfchar " +
        "2 beginbfrange <0010> <0012> <0061> <0020> <0021> [<00E9> <006600690078>] endbfrange endcmap end end",
    );
    const pdf = onePage(
      "BT /F1 12 Tf 72 700 Td <0001001000110012> Tj ( ) Tj <00200021 0002 0099> Tj ET",
      "<< /Font << /F1 5 0 R >> >>",
      [
        "<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding /Identity-H /DescendantFonts [6 0 R] /ToUnicode 7 0 R >>",
        "<< /Type /Font /Subtype /CIDFontType2 /BaseFont /X /DW 500 >>",
        ["<< >>", cmap],
      ],
    );
    expect(await extractPdfText(pdf)).toEqual(["Habc éfix😀"]);
  });

  it("Form XObjects: drawn text is read, a form that draws itself is read once", async () => {
    const pdf = onePage("q 1 0 0 1 50 600 cm /Fx Do Q", "<< /XObject << /Fx 5 0 R >> >>", [
      [
        "<< /Type /XObject /Subtype /Form /BBox [0 0 500 100] /Resources << /Font << /F1 6 0 R >> /XObject << /Fx 5 0 R >> >> >>",
        enc("BT /F1 12 Tf 0 0 Td (in a form) Tj ET /Fx Do"),
      ],
      HELVETICA_FONT,
    ]);
    expect(await extractPdfText(pdf)).toEqual(["in a form"]);
  });

  it("a Contents array is one stream; FlateDecode and ASCIIHexDecode chains decode", async () => {
    const deflated = deflateSync(Buffer.from("BT /F1 12 Tf 72 700 Td (Hello) Tj"));
    const hex = enc(Buffer.from(deflated).toString("hex") + ">");
    const pdf = buildPdf([
      "<< /Type /Catalog /Pages 2 0 R >>",
      "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
      `<< /Type /Page /Parent 2 0 R /Resources ${HELVETICA} /Contents [4 0 R 6 0 R] >>`,
      ["<< /Filter [/ASCIIHexDecode /FlateDecode] >>", hex],
      HELVETICA_FONT,
      ["<< >>", enc("( world) Tj ET")],
    ]);
    expect(await extractPdfText(pdf)).toEqual(["Hello world"]);
  });

  it("a truncated Flate stream keeps what decoded before the damage", async () => {
    const path = Array.from({ length: 3000 }, (_, i) => `${i} ${(i * 7919) % 1000} l`).join(" ");
    const deflated = deflateSync(Buffer.from(`BT /F1 12 Tf 72 700 Td (Partial text) Tj ET ${path}`));
    const pdf = onePage(
      new Uint8Array(deflated.subarray(0, deflated.length - 30)),
      HELVETICA,
      [HELVETICA_FONT],
      "/Filter /FlateDecode",
    );
    expect(await extractPdfText(pdf)).toEqual(["Partial text"]);
  });

  it("wrong xref offsets: objects are found by scanning the file", async () => {
    const pdf = buildPdf(
      [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        `<< /Type /Page /Parent 2 0 R /Resources ${HELVETICA} /Contents 4 0 R >>`,
        ["<< >>", enc("BT /F1 12 Tf 72 700 Td (Recovered) Tj ET")],
        HELVETICA_FONT,
      ],
      { xref: "wrong" },
    );
    expect(await extractPdfText(pdf)).toEqual(["Recovered"]);
  });

  it("a decompression bomb is a ValidationError, not an exhausted isolate", async () => {
    const bomb = deflateSync(Buffer.alloc(48 * 1024 * 1024, 0x20));
    const pdf = onePage(new Uint8Array(bomb), HELVETICA, [HELVETICA_FONT], "/Filter /FlateDecode");
    const err = await new PdfReader().read({ name: "bomb.pdf", bytes: pdf }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as Error).message).toMatch(/expand past/);
  });

  it("many pages of moderately compressed streams hit the document's limit", async () => {
    const page = deflateSync(Buffer.alloc(6 * 1024 * 1024, 0x20));
    const objects: Array<string | [string, Uint8Array]> = [
      "<< /Type /Catalog /Pages 2 0 R >>",
      `<< /Type /Pages /Kids [${Array.from({ length: 20 }, (_, i) => `${3 + i * 2} 0 R`).join(" ")}] /Count 20 >>`,
    ];
    for (let i = 0; i < 20; i++)
      objects.push(`<< /Type /Page /Parent 2 0 R /Contents ${4 + i * 2} 0 R >>`, [
        "<< /Filter /FlateDecode >>",
        new Uint8Array(page),
      ]);
    await expect(extractPdfText(buildPdf(objects))).rejects.toThrow(/expand past/);
  });

  it("encrypted PDFs are refused by name", async () => {
    for (const bytes of [
      fixture("issue6010_1.pdf"),
      buildPdf(
        [
          "<< /Type /Catalog /Pages 2 0 R >>",
          "<< /Type /Pages /Kids [] /Count 0 >>",
          "<< /Filter /Standard /V 1 /R 2 >>",
        ],
        {
          trailer: "/Encrypt 3 0 R",
        },
      ),
    ]) {
      const err = await new PdfReader().read({ name: "secret.pdf", bytes }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as Error).message).toBe("encrypted PDFs are not supported");
    }
  });

  it("PdfReader takes pdf.js as an opt-in engine", async () => {
    const bytes = makePdf([["Opt-in engine."]]);
    const docs = await new PdfReader({ engine: pdfjsEngine }).read({ name: "x.pdf", bytes });
    expect(docs.map((d) => d.content)).toEqual(["Opt-in engine."]);
  });
});
