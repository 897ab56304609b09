export { chunkId, cleanText, DEFAULT_CHUNK_SIZE } from "./chunk-base.js";
export { DocumentChunking } from "./document-chunking.js";
export { FixedSizeChunking } from "./fixed-size-chunking.js";
export { MarkdownChunking } from "./markdown-chunking.js";
export { RecursiveChunking } from "./recursive-chunking.js";
export { RowChunking } from "./row-chunking.js";
export { CHUNKERS, makeChunker } from "./chunkers.js";
