import { ValidationError } from "../../../errors.js";
import { ContentContext, runContent } from "./content.js";
import { PdfDocument } from "./document.js";
import { PdfStream } from "./objects.js";
import { listPages } from "./pages.js";
import { TextBuilder } from "./text-builder.js";

/**
 * The text of each page of a PDF, in page order ("" for a page without text). A page whose
 * content is damaged keeps the text read before the damage; limits (decompression, nesting) and
 * unsupported encryption are ValidationErrors.
 */
export async function extractPdfText(bytes: Uint8Array): Promise<string[]> {
  const doc = await PdfDocument.open(bytes);
  if (doc.trailer.has("Encrypt")) throw new ValidationError("encrypted PDFs are not supported", "file");
  const ctx = new ContentContext(doc);
  const texts: string[] = [];
  for (const page of await listPages(doc)) {
    const out = new TextBuilder(page.box);
    try {
      const contents = await doc.resolve(page.dict.get("Contents"));
      const parts = Array.isArray(contents) ? contents : contents ? [contents] : [];
      const chunks: Uint8Array[] = [];
      for (const part of parts) {
        const s = await doc.resolve(part);
        const data = s instanceof PdfStream ? await doc.streamData(s) : undefined;
        if (data) chunks.push(data, new Uint8Array([10]));
      }
      // a /Contents array is one stream cut at token boundaries
      const data = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
      let at = 0;
      for (const c of chunks) {
        data.set(c, at);
        at += c.length;
      }
      await runContent(ctx, data, page.resources, out);
    } catch (err) {
      if (err instanceof ValidationError) throw err;
    }
    texts.push(out.text());
  }
  return texts;
}
