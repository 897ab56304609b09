import type { KnowledgeDocument } from "../document.js";
import type { Reader, ReaderInput } from "../reader.js";
import { docName, inputText } from "./decode.js";
import { htmlToText } from "./html-text.js";

/**
 * Web pages and HTML files (agno's WebsiteReader's parsing, without the crawl): tags, scripts and
 * styles stripped, headings and lists kept as Markdown lines, chunked by structure.
 */
export class HtmlReader implements Reader {
  readonly id = "html";
  readonly name = "HTML Reader";
  readonly description =
    "Extracts the text of HTML pages, dropping scripts and styles and keeping headings, lists and paragraphs";
  readonly accepts = { extensions: [".html", ".htm", ".xhtml"], contentTypes: ["text/html", "application/xhtml+xml"] };
  readonly defaultChunker = "MarkdownChunker";
  readonly chunkers = ["MarkdownChunker", "FixedSizeChunker", "RecursiveChunker", "DocumentChunker"];

  async read(input: ReaderInput): Promise<KnowledgeDocument[]> {
    const { title, text } = htmlToText(inputText(input));
    if (!text) return [];
    const meta: Record<string, unknown> = { ...input.metadata };
    if (title) meta.title = title;
    return [{ name: docName(input), id: crypto.randomUUID(), content: text, meta_data: meta }];
  }
}
