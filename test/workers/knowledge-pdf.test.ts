import { describe, expect, it } from "vitest";
import { DocumentChunking } from "../../src/knowledge/chunking/document-chunking.js";
import { PdfReader } from "../../src/knowledge/readers/pdf-reader.js";
import { HtmlReader } from "../../src/knowledge/readers/html-reader.js";
import { makePdf } from "../support/knowledge-pdf.js";

// The readers run in workerd as in a deployed Worker: the built-in PDF extractor uses Web APIs only
// (DecompressionStream for Flate).
describe("knowledge readers on Workers", () => {
  it("extracts a PDF's pages", async () => {
    const docs = await new PdfReader().read({
      name: "terms.pdf",
      bytes: makePdf([["Invoices are due in 30 days."], ["Contact billing."]]),
    });
    expect(docs.map((d) => [d.meta_data.page, d.content])).toEqual([
      [1, "Invoices are due in 30 days."],
      [2, "Contact billing."],
    ]);
    expect(docs.flatMap((d) => new DocumentChunking().chunk(d))).toHaveLength(2);
  });

  it("reads HTML", async () => {
    const [doc] = await new HtmlReader().read({ name: "p.html", text: "<h2>Hi</h2><p>there</p><script>x()</script>" });
    expect(doc!.content).toBe("## Hi\n\nthere");
  });
});
