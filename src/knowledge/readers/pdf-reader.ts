import { AgnoError, ValidationError } from "../../errors.js";
import type { KnowledgeDocument } from "../document.js";
import type { Reader, ReaderInput } from "../reader.js";
import { docName } from "./decode.js";
import { builtinPdfEngine, type PdfEngine } from "./pdf/engine.js";

export interface PdfReaderOptions {
  /** what extracts the pages' text: the built-in extractor unless given (`pdfjsEngine` from `agno-edge/pdfjs`) */
  engine?: PdfEngine;
}

/**
 * agno's PDFReader: one document per page with text (`<name>_<page>`, meta_data.page). Text comes
 * from the built-in extractor by default; pdf.js is an opt-in engine for PDFs that need it.
 */
export class PdfReader implements Reader {
  readonly id = "pdf";
  readonly name = "PDF Reader";
  readonly description = "Processes PDF documents with OCR support for images and text extraction";
  readonly accepts = { extensions: [".pdf"], contentTypes: ["application/pdf"] };
  readonly defaultChunker = "DocumentChunker";
  readonly chunkers = ["DocumentChunker", "FixedSizeChunker", "RecursiveChunker", "MarkdownChunker"];
  private readonly engine: PdfEngine;

  constructor(options: PdfReaderOptions = {}) {
    this.engine = options.engine ?? builtinPdfEngine;
  }

  async read(input: ReaderInput): Promise<KnowledgeDocument[]> {
    const bytes = input.bytes;
    if (!bytes || bytes.length < 5 || new TextDecoder().decode(bytes.subarray(0, 5)) !== "%PDF-")
      throw new ValidationError("content is not a PDF (it does not start with %PDF-)", "file");
    let pages: string[];
    try {
      pages = await this.engine.extractPages(bytes);
    } catch (err) {
      if (err instanceof AgnoError) throw err;
      throw new ValidationError(`the PDF could not be read: ${(err as Error).message}`, "file");
    }
    const name = docName(input);
    const docs: KnowledgeDocument[] = [];
    pages.forEach((text, i) => {
      if (!text.trim()) return;
      docs.push({ name, id: `${name}_${i + 1}`, meta_data: { ...input.metadata, page: i + 1 }, content: text });
    });
    return docs;
  }
}
