import type { ReaderInput } from "../reader.js";

/** The input's text: given text, or its bytes as UTF-8 (a BOM dropped, bad sequences replaced). */
export function inputText(input: ReaderInput): string {
  if (input.text !== undefined) return input.text;
  if (!input.bytes) return "";
  return new TextDecoder("utf-8").decode(input.bytes);
}

/** A document name from the content's name or file name, without its extension (as agno names them). */
export function docName(input: ReaderInput): string {
  const n = input.name || input.fileName || "content";
  return n.replace(/\.[A-Za-z0-9]{1,8}$/, "") || n;
}
