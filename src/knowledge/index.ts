export type { ChunkingStrategy } from "./chunking.js";
export type { ContentInput, ContentPage, ContentRecord, ContentStatus, ListContentsOptions } from "./content.js";
export { documentToDict, type KnowledgeDocument } from "./document.js";
export type { EmbedResult, Embedder } from "./embedder.js";
export {
  EmbedderError,
  UnsupportedContentTypeError,
  VectorExtensionUnavailableError,
  VectorTableMigrationRequiredError,
} from "./errors.js";
export {
  AND,
  EQ,
  GT,
  GTE,
  IN,
  LT,
  LTE,
  NEQ,
  NOT,
  OR,
  matchesFilter,
  normalizeFilters,
  type FilterExpr,
  type KnowledgeFilters,
} from "./filters.js";
export {
  knowledgeContext,
  knowledgeSearchTool,
  type KnowledgeUseOptions,
  type MessageReferences,
  type ReferenceSink,
} from "./agent-knowledge.js";
export {
  Knowledge,
  MAX_CONTENT_BYTES,
  type ContentFetcher,
  type ContentScope,
  type KnowledgeConfigInfo,
  type KnowledgeOptions,
  type KnowledgeSearchOptions,
} from "./knowledge.js";
export type { Reader, ReaderInput } from "./reader.js";
export type { Reranker } from "./reranker.js";
export type { SearchType, VectorDb, VectorRecord, VectorSearchOptions } from "./vector-db.js";
