import type { Reader } from "../reader.js";
import { CsvReader } from "./csv-reader.js";
import { HtmlReader } from "./html-reader.js";
import { JsonReader } from "./json-reader.js";
import { MarkdownReader } from "./markdown-reader.js";
import { PdfReader } from "./pdf-reader.js";
import { TextReader } from "./text-reader.js";

/** The readers a Knowledge has unless told otherwise, by agno's reader keys. */
export function defaultReaders(): Record<string, Reader> {
  return {
    text: new TextReader(),
    markdown: new MarkdownReader(),
    html: new HtmlReader(),
    json: new JsonReader(),
    csv: new CsvReader(),
    pdf: new PdfReader(),
  };
}

/** The reader for a content: by its MIME type, else its file extension, else text (agno's fallback). */
export function readerFor(
  readers: Record<string, Reader>,
  opts: { contentType?: string; fileName?: string },
): Reader | undefined {
  const type = opts.contentType?.split(";")[0]!.trim().toLowerCase();
  const all = Object.values(readers);
  if (type) {
    const byType = all.find((r) => r.accepts.contentTypes.includes(type));
    if (byType) return byType;
  }
  const ext = /\.[a-z0-9]+$/i.exec(opts.fileName ?? "")?.[0]?.toLowerCase();
  if (ext) {
    const byExt = all.find((r) => r.accepts.extensions.includes(ext));
    if (byExt) return byExt;
  }
  if (!type || type === "application/octet-stream" || type.startsWith("text/")) return readers.text;
  return undefined;
}
