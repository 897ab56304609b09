import { z } from "zod";
import { agnoDatetime, agnoObject } from "./agno-object.js";
import { paginated, paginationInfoSchema } from "./paginated.js";

// agno's knowledge router models (`os/routers/knowledge/schemas.py`). Their optional fields are
// pydantic `Optional[...] = None`, sent as null; `DELETE /knowledge/content/{id}` alone answers
// with `response_model_exclude_none=True`, leaving them out: hence nullable and optional both.
const maybe = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

/** agno's `ContentStatus`. */
export const CONTENT_STATUSES = ["processing", "completed", "failed"] as const;
export const contentStatusSchema = z.enum(CONTENT_STATUSES);

/** agno's `ContentResponseSchema`: one content of a knowledge base. */
export const contentResponseSchema = agnoObject(
  { model: "ContentResponseSchema", file: "os/routers/knowledge/schemas.py" },
  {
    id: z.string(),
    name: maybe(z.string()),
    description: maybe(z.string()),
    type: maybe(z.string()).describe("MIME type of the content"),
    size: maybe(z.string()).describe("Size of the content in bytes, as a string"),
    linked_to: maybe(z.string()),
    metadata: maybe(z.record(z.string(), z.unknown())),
    access_count: maybe(z.int().min(0)),
    status: maybe(contentStatusSchema),
    status_message: maybe(z.string()),
    created_at: maybe(agnoDatetime()),
    updated_at: maybe(agnoDatetime()),
  },
);
export type ContentResponse = z.infer<typeof contentResponseSchema>;

export const paginatedContentSchema = paginated(contentResponseSchema);

/** agno's `ContentStatusResponse`. */
export const contentStatusResponseSchema = agnoObject(
  { model: "ContentStatusResponse", file: "os/routers/knowledge/schemas.py" },
  {
    id: z.string().nullable(),
    status: contentStatusSchema,
    status_message: z.string(),
  },
);

/** agno's `VectorSearchResult`: one retrieved document. */
export const vectorSearchResultSchema = agnoObject(
  { model: "VectorSearchResult", file: "os/routers/knowledge/schemas.py" },
  {
    id: z.string().nullable(),
    content: z.string(),
    name: z.string().nullable(),
    meta_data: z.record(z.string(), z.unknown()).nullable(),
    usage: z.record(z.string(), z.unknown()).nullable(),
    reranking_score: z.number().min(0).max(1).nullable(),
    content_id: z.string().nullable(),
    content_origin: z.string().nullable(),
    size: z.int().min(0).nullable(),
  },
);
export type VectorSearchResult = z.infer<typeof vectorSearchResultSchema>;

export const paginatedSearchSchema = paginated(vectorSearchResultSchema);

/** agno's `VectorSearchRequestSchema`: the body of `POST /knowledge/search`. */
export const vectorSearchRequestSchema = z
  .object({
    query: z.string().min(1).max(10_000).describe("The search query text"),
    db_id: z.string().min(1).max(255).nullable().optional().describe("Database ID to search in"),
    knowledge_id: z.string().min(1).max(255).nullable().optional().describe("Knowledge base ID to search in"),
    vector_db_ids: z.array(z.string().max(255)).max(100).nullable().optional(),
    search_type: z.enum(["vector", "keyword", "hybrid"]).nullable().optional(),
    max_results: z.int().min(1).max(1000).nullable().optional(),
    filters: z
      .union([z.record(z.string(), z.unknown()), z.array(z.unknown())])
      .nullable()
      .optional()
      .describe("Metadata filters: an object of equalities, or a filter expression"),
    meta: z
      .object({ limit: z.int().min(1).max(1000).default(20), page: z.int().min(1).default(1) })
      .nullable()
      .optional(),
  })
  .strict();

/** agno's `ReaderSchema`. */
export const readerSchema = agnoObject(
  { model: "ReaderSchema", file: "os/routers/knowledge/schemas.py" },
  {
    id: z.string(),
    name: z.string().nullable(),
    description: z.string().nullable(),
    chunkers: z.array(z.string()).nullable(),
  },
);

/** agno's `ChunkerSchema`. */
export const chunkerSchema = agnoObject(
  { model: "ChunkerSchema", file: "os/routers/knowledge/schemas.py" },
  {
    key: z.string(),
    name: z.string().nullable(),
    description: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()).nullable(),
  },
);

/** agno's `VectorDbSchema`. */
export const vectorDbSchema = agnoObject(
  { model: "VectorDbSchema", file: "os/routers/knowledge/schemas.py" },
  {
    id: z.string(),
    name: z.string().nullable(),
    description: z.string().nullable(),
    search_types: z.array(z.string()).nullable(),
  },
);

/** agno's `RemoteContentSourceSchema`. */
export const remoteContentSourceSchema = agnoObject(
  { model: "RemoteContentSourceSchema", file: "os/routers/knowledge/schemas.py" },
  {
    id: z.string(),
    name: z.string(),
    type: z.string(),
    metadata: z.record(z.string(), z.unknown()).nullable(),
    prefix: z.string().nullable(),
  },
);

/** agno's `ConfigResponseSchema`: what `GET /knowledge/config` answers. */
export const knowledgeConfigResponseSchema = agnoObject(
  { model: "ConfigResponseSchema", file: "os/routers/knowledge/schemas.py" },
  {
    readers: z.record(z.string(), readerSchema).nullable(),
    readersForType: z.record(z.string(), z.array(z.string())).nullable(),
    chunkers: z.record(z.string(), chunkerSchema).nullable(),
    filters: z.array(z.string()).nullable(),
    vector_dbs: z.array(vectorDbSchema).nullable(),
    remote_content_sources: z.array(remoteContentSourceSchema).nullable(),
  },
);
export type KnowledgeConfigResponse = z.infer<typeof knowledgeConfigResponseSchema>;

/** agno's `SourceFolderSchema`. */
const sourceFolderSchema = agnoObject(
  { model: "SourceFolderSchema", file: "os/routers/knowledge/schemas.py" },
  { prefix: z.string(), name: z.string(), is_empty: z.boolean() },
);

/** agno's `SourceFileSchema`. */
const sourceFileSchema = agnoObject(
  { model: "SourceFileSchema", file: "os/routers/knowledge/schemas.py" },
  {
    key: z.string(),
    name: z.string(),
    size: z.int().nullable(),
    last_modified: agnoDatetime().nullable(),
    content_type: z.string().nullable(),
  },
);

/** agno's `SourceFilesResponseSchema`. */
export const sourceFilesResponseSchema = agnoObject(
  { model: "SourceFilesResponseSchema", file: "os/routers/knowledge/schemas.py" },
  {
    source_id: z.string(),
    source_name: z.string(),
    prefix: z.string().nullable(),
    folders: z.array(sourceFolderSchema),
    files: z.array(sourceFileSchema),
    meta: paginationInfoSchema,
  },
);
