import type { KnowledgeDocument } from "../document.js";
import type { Reader, ReaderInput } from "../reader.js";
import { docName, inputText } from "./decode.js";

/** agno's TextReader: the whole text as one document (FixedSizeChunker by default). */
export class TextReader implements Reader {
  readonly id = "text";
  readonly name = "Text Reader";
  readonly description = "Handles plain text files with customizable chunking strategies and encoding detection";
  readonly accepts = { extensions: [".txt", ".text"], contentTypes: ["text/plain"] };
  readonly defaultChunker = "FixedSizeChunker";
  readonly chunkers = ["FixedSizeChunker", "RecursiveChunker", "DocumentChunker", "MarkdownChunker"];

  async read(input: ReaderInput): Promise<KnowledgeDocument[]> {
    const content = inputText(input);
    if (!content.trim()) return [];
    return [{ name: docName(input), id: crypto.randomUUID(), content, meta_data: { ...input.metadata } }];
  }
}
