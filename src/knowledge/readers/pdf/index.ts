export { builtinPdfEngine, type PdfEngine } from "./engine.js";
export { extractPdfText } from "./extract.js";
