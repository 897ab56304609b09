import { ValidationError } from "../../errors.js";
import type { KnowledgeDocument } from "../document.js";
import type { Reader, ReaderInput } from "../reader.js";
import { docName } from "./decode.js";

/**
 * agno's PDFReader: one document per page (`<name>_<page>`, meta_data.page), text extracted by
 * unpdf (Mozilla's pdf.js built for serverless runtimes, pure JS). unpdf is imported on the first
 * PDF only, so a process that never reads one never loads it.
 */
export class PdfReader implements Reader {
  readonly id = "pdf";
  readonly name = "PDF Reader";
  readonly description = "Processes PDF documents with OCR support for images and text extraction";
  readonly accepts = { extensions: [".pdf"], contentTypes: ["application/pdf"] };
  readonly defaultChunker = "DocumentChunker";
  readonly chunkers = ["DocumentChunker", "FixedSizeChunker", "RecursiveChunker", "MarkdownChunker"];

  async read(input: ReaderInput): Promise<KnowledgeDocument[]> {
    const bytes = input.bytes;
    if (!bytes || bytes.length < 5 || new TextDecoder().decode(bytes.subarray(0, 5)) !== "%PDF-")
      throw new ValidationError("content is not a PDF (it does not start with %PDF-)", "file");
    const { extractText, getDocumentProxy } = await import("unpdf");
    let pages: string[];
    try {
      // pdf.js takes ownership of (detaches) the buffer it is given: hand it a copy
      const pdf = await getDocumentProxy(new Uint8Array(bytes));
      pages = (await extractText(pdf, { mergePages: false })).text;
    } catch (err) {
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
