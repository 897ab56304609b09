import type { KnowledgeDocument } from "../document.js";
import type { Reader, ReaderInput } from "../reader.js";
import { docName, inputText } from "./decode.js";

/** agno's MarkdownReader: the whole file as one document, chunked by structure (MarkdownChunker). */
export class MarkdownReader implements Reader {
  readonly id = "markdown";
  readonly name = "Markdown Reader";
  readonly description = "Processes Markdown documentation with header-aware chunking and formatting preservation";
  readonly accepts = { extensions: [".md", ".markdown", ".mdx"], contentTypes: ["text/markdown", "text/x-markdown"] };
  readonly defaultChunker = "MarkdownChunker";
  readonly chunkers = ["MarkdownChunker", "FixedSizeChunker", "RecursiveChunker", "DocumentChunker"];

  async read(input: ReaderInput): Promise<KnowledgeDocument[]> {
    const content = inputText(input);
    if (!content.trim()) return [];
    return [{ name: docName(input), id: crypto.randomUUID(), content, meta_data: { ...input.metadata } }];
  }
}
