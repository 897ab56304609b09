import type { KnowledgeDocument } from "../document.js";
import type { Reader, ReaderInput } from "../reader.js";
import { docName, inputText } from "./decode.js";

/** RFC 4180 records: quoted fields may hold the delimiter, quotes ("") and line breaks. */
export function parseCsv(text: string, delimiter = ","): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += c;
    } else if (c === '"' && field === "") quoted = true;
    else if (c === delimiter) {
      row.push(field);
      field = "";
    } else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else field += c;
  }
  if (field !== "" || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((r) => r.some((f) => f.trim() !== ""));
}

/** agno's CSVReader: one document whose lines are the rows, fields joined by ", " (RowChunker: one chunk per row). */
export class CsvReader implements Reader {
  readonly id = "csv";
  readonly name = "CSV Reader";
  readonly description = "Parses CSV files with custom delimiter support";
  readonly accepts = { extensions: [".csv", ".tsv"], contentTypes: ["text/csv", "text/tab-separated-values"] };
  readonly defaultChunker = "RowChunker";
  readonly chunkers = ["RowChunker", "FixedSizeChunker", "RecursiveChunker", "DocumentChunker"];

  async read(input: ReaderInput): Promise<KnowledgeDocument[]> {
    const tsv = input.contentType?.includes("tab-separated") || input.fileName?.toLowerCase().endsWith(".tsv");
    const rows = parseCsv(inputText(input), tsv ? "\t" : ",");
    if (!rows.length) return [];
    const content = rows.map((r) => r.map((f) => f.replace(/\s+/g, " ").trim()).join(", ")).join("\n");
    return [{ name: docName(input), id: crypto.randomUUID(), content, meta_data: { ...input.metadata } }];
  }
}
