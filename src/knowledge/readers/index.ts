export { CsvReader, parseCsv } from "./csv-reader.js";
export { defaultReaders, readerFor } from "./default-readers.js";
export { HtmlReader } from "./html-reader.js";
export { htmlToText } from "./html-text.js";
export { JsonReader } from "./json-reader.js";
export { MarkdownReader } from "./markdown-reader.js";
export { builtinPdfEngine, type PdfEngine } from "./pdf/index.js";
export { PdfReader, type PdfReaderOptions } from "./pdf-reader.js";
export { TextReader } from "./text-reader.js";
