import { extractPdfText } from "./extract.js";

/** What PdfReader reads pages with: a PDF's bytes to the text of each page, in page order. */
export interface PdfEngine {
  readonly name: string;
  extractPages(bytes: Uint8Array): Promise<string[]>;
}

/**
 * The default engine: this package's own text extractor (objects, stream filters, fonts' encodings
 * and ToUnicode CMaps, text operators), a small fraction of pdf.js's size in a Worker bundle.
 */
export const builtinPdfEngine: PdfEngine = { name: "builtin", extractPages: extractPdfText };
