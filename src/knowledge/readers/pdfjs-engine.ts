import type { PdfEngine } from "./pdf/engine.js";

/**
 * Mozilla's pdf.js (through unpdf, its build for serverless runtimes) as PdfReader's engine, for
 * PDFs that need its fidelity (fonts without ToUnicode whose text only the embedded font program
 * maps, encrypted files, right-to-left ordering):
 *
 *   import { pdfjsEngine } from "agno-edge/pdfjs";
 *   new PdfReader({ engine: pdfjsEngine });
 *
 * Only this module imports unpdf, so a Worker that does not import it carries none of pdf.js.
 */
export const pdfjsEngine: PdfEngine = {
  name: "pdfjs",
  async extractPages(bytes) {
    const { extractText, getDocumentProxy } = await import("unpdf");
    // pdf.js takes ownership of (detaches) the buffer it is given: hand it a copy
    const pdf = await getDocumentProxy(new Uint8Array(bytes));
    return (await extractText(pdf, { mergePages: false })).text;
  },
};
