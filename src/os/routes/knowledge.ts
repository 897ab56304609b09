import { z } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { BadRequestError, ForbiddenError, NotFoundError, ValidationError } from "../../errors.js";
import type { ContentInput } from "../../knowledge/content.js";
import type { Knowledge } from "../../knowledge/knowledge.js";
import { checkRemoteUrl } from "../../knowledge/remote/safe-fetch.js";
import type { MediaStorage } from "../../offload/media-storage.js";
import { keepUpload, knowledgeJobInput, enqueueKnowledgeJob } from "../../queue/knowledge-job.js";
import { keepAlive } from "../agent-runs.js";
import { userCaps, type QueueConfig } from "../background.js";
import { errorResponse } from "../errors.js";
import { scopedUserId } from "../auth/scopes.js";
import { knowledgeFor, vectorStoreReadiness } from "../knowledge-bases.js";
import { contentView, knowledgeConfigView, searchResultView, statusOf } from "../knowledge-views.js";
import { defineRoute, errorSchema, handle, idSchema, jsonAnswer, jsonBody, routeApp } from "../route.js";
import {
  contentResponseSchema,
  contentStatusResponseSchema,
  knowledgeConfigResponseSchema,
  paginatedContentSchema,
  paginatedSearchSchema,
  remoteContentSourceSchema,
  sourceFilesResponseSchema,
  vectorSearchRequestSchema,
} from "../wire/knowledge.js";
import { paginationInfo } from "../wire/paginated.js";
import { keepUploadPolicy, uploadFields, type UploadPolicy } from "./knowledge-upload.js";

const tags: ["Knowledge"] = ["Knowledge"];
const read = { resource: "knowledge", action: "read" };
const write = { resource: "knowledge", action: "write" };
const remove = { resource: "knowledge", action: "delete" };

/** Which knowledge base (agno's query parameters on every knowledge route). */
const target = z.object({
  db_id: idSchema.optional().describe("Database ID to use"),
  knowledge_id: idSchema.optional().describe("Knowledge base ID to use"),
});
const contentPath = z.object({ content_id: idSchema });
const errors = (more: Record<number, string> = {}) =>
  Object.fromEntries(
    Object.entries({
      400: "No knowledge base named, several served, or bad input",
      404: "No such knowledge base (or content, for the caller)",
      503: 'No database, or the PostgreSQL extension "vector" is missing',
      ...more,
    }).map(([status, description]) => [status, jsonAnswer(errorSchema, description)]),
  );
/** Forms send every field as text; an empty one is absent. */
const text = (max: number) => z.preprocess((v) => (v === "" ? undefined : v), z.string().max(max).optional());

/** agno's `update_content` form. */
const patchFields = z.object({
  name: text(255),
  description: text(1000),
  metadata: text(100_000).describe("JSON object"),
  reader_id: text(255),
});

const uploadContent = defineRoute({
  method: "post",
  path: "/knowledge/content",
  tags,
  summary: "Upload content: a file, text or a URL, ingested in the background (202, status processing)",
  description:
    "Multipart form: `file` (text, Markdown, HTML, JSON, CSV or PDF), or `text_content`, or `url` (http(s), fetched with a size cap, a type check and a timeout; " +
    "private, loopback and link-local addresses are refused with 400). The content is recorded as `processing` and ingested by a background job (the durable queue where the deployment has one); " +
    "`GET /knowledge/content/{content_id}/status` follows it to `completed` or `failed` with the reason. A file larger than the upload limit is a 413, a type no reader takes a 400.",
  scope: write,
  request: {
    query: target,
    body: { required: true, content: { "multipart/form-data": { schema: uploadFields } } },
  },
  responses: {
    202: jsonAnswer(contentResponseSchema, "Content upload accepted for processing"),
    ...errors({ 413: "The file is larger than the upload limit" }),
  },
});

const remoteContent = defineRoute({
  method: "post",
  path: "/knowledge/remote-content",
  tags,
  summary: "Upload content from a configured remote source (S3, GCS, SharePoint, GitHub): none is configured here",
  description:
    "This deployment offers none of agno's remote content sources, so every `config_id` is unknown: a 400, as agno answers an unknown source.",
  scope: write,
  request: {
    query: target,
    body: {
      required: true,
      content: {
        "multipart/form-data": {
          schema: z.object({
            config_id: z.string().min(1).max(255),
            path: z.string().min(1).max(4096),
            source_params: text(10_000),
            name: text(255),
            description: text(1000),
            metadata: text(100_000),
            reader_id: text(255),
            chunker: text(255),
            chunk_size: text(20),
            chunk_overlap: text(20),
          }),
        },
      },
    },
  },
  responses: { 202: jsonAnswer(contentResponseSchema, "Remote content accepted for processing"), ...errors() },
});

const updateContent = defineRoute({
  method: "patch",
  path: "/knowledge/content/{content_id}",
  tags,
  summary: "Update a content's name, description, metadata or reader",
  description: "Another user's content is 404; shared content (no owner) may be changed by admins only (403).",
  scope: write,
  request: {
    params: contentPath,
    query: target,
    body: {
      required: true,
      content: {
        "multipart/form-data": { schema: patchFields },
        "application/x-www-form-urlencoded": { schema: patchFields },
      },
    },
  },
  responses: { 200: jsonAnswer(contentResponseSchema, "Content updated"), ...errors({ 403: "Shared content" }) },
});

const listContent = defineRoute({
  method: "get",
  path: "/knowledge/content",
  tags,
  summary: "List contents: the caller's and the shared ones (admins: all)",
  scope: read,
  request: {
    query: target.extend({
      limit: z.coerce.number().int().min(1).max(1000).default(20),
      page: z.coerce.number().int().min(0).default(1),
      sort_by: z.enum(["created_at", "updated_at", "name"]).default("created_at"),
      sort_order: z.enum(["asc", "desc"]).default("desc"),
    }),
  },
  responses: { 200: jsonAnswer(paginatedContentSchema, "A page of contents"), ...errors() },
});

const getContent = defineRoute({
  method: "get",
  path: "/knowledge/content/{content_id}",
  tags,
  summary: "A content, with its processing status",
  scope: read,
  request: { params: contentPath, query: target },
  responses: { 200: jsonAnswer(contentResponseSchema, "The content"), ...errors() },
});

const deleteContent = defineRoute({
  method: "delete",
  path: "/knowledge/content/{content_id}",
  tags,
  summary: "Delete a content and its vectors",
  description: "Another user's content is 404; shared content may be deleted by admins only (403).",
  scope: remove,
  request: { params: contentPath, query: target },
  responses: { 200: jsonAnswer(contentResponseSchema, "Deleted: `{id}`"), ...errors({ 403: "Shared content" }) },
});

const deleteAll = defineRoute({
  method: "delete",
  path: "/knowledge/content",
  tags,
  summary: "Delete every content: an admin's clears the knowledge base, a user's only their own contents",
  scope: remove,
  request: { query: target },
  responses: { 200: jsonAnswer(z.literal("success"), '"success"'), ...errors() },
});

const contentStatus = defineRoute({
  method: "get",
  path: "/knowledge/content/{content_id}/status",
  tags,
  summary: "A content's processing status: processing, completed, or failed with the reason",
  scope: read,
  request: { params: contentPath, query: target },
  responses: { 200: jsonAnswer(contentStatusResponseSchema, "The status"), ...errors() },
});

const search = defineRoute({
  method: "post",
  path: "/knowledge/search",
  tags,
  summary: "Search the knowledge base (vector, keyword or hybrid), with metadata filters; a page of documents",
  description:
    "The caller's documents and the shared ones (admins: all). `filters` is an object of equalities or one of agno's filter expressions; a malformed one is a 422.",
  scope: read,
  request: { body: jsonBody(vectorSearchRequestSchema) },
  responses: { 200: jsonAnswer(paginatedSearchSchema, "A page of documents"), ...errors() },
});

const config = defineRoute({
  method: "get",
  path: "/knowledge/config",
  tags,
  summary: "The knowledge base's readers, chunkers, vector database and filter keys",
  scope: read,
  request: { query: target },
  responses: { 200: jsonAnswer(knowledgeConfigResponseSchema, "The configuration"), ...errors() },
});

const sources = defineRoute({
  method: "get",
  path: "/knowledge/{knowledge_id}/sources",
  tags,
  summary: "The knowledge base's remote content sources: none are configured here",
  scope: read,
  request: { params: z.object({ knowledge_id: idSchema }), query: z.object({ db_id: idSchema.optional() }) },
  responses: { 200: jsonAnswer(z.array(remoteContentSourceSchema), "The sources (empty)"), ...errors() },
});

const sourceFiles = defineRoute({
  method: "get",
  path: "/knowledge/{knowledge_id}/sources/{source_id}/files",
  tags,
  summary: "Files in a remote content source: none is configured here, so every source is 404",
  scope: read,
  request: {
    params: z.object({ knowledge_id: idSchema, source_id: idSchema }),
    query: z.object({
      prefix: z.string().max(1024).optional(),
      limit: z.coerce.number().int().min(1).max(1000).default(100),
      page: z.coerce.number().int().min(1).default(1),
      delimiter: z.string().max(16).default("/"),
      db_id: idSchema.optional(),
    }),
  },
  responses: { 200: jsonAnswer(sourceFilesResponseSchema, "A page of files and folders"), ...errors() },
});

export interface KnowledgeRouteOptions {
  queue?: QueueConfig;
  /** where uploaded files are kept for their ingestion job */
  media?: MediaStorage;
  upload?: Partial<UploadPolicy>;
}

/** agno's `/knowledge` router over the AgentOS's knowledge bases. */
export function knowledgeRoutes(bases: readonly Knowledge[], opts: KnowledgeRouteOptions = {}) {
  const app = routeApp();
  const ready = vectorStoreReadiness();
  const policy = keepUploadPolicy(opts.upload);
  const resolve = async (c: Parameters<typeof knowledgeFor>[0], q: { db_id?: string; knowledge_id?: string }) => {
    const found = knowledgeFor(c, bases, q);
    await ready(found.kb, found.bound, found.db);
    return found;
  };
  /** The content as the caller may see it, or 404; `edit`: shared content is an admin's to change (403). */
  const owned = async (bound: Knowledge, id: string, scoped: string | null | undefined, edit?: string) => {
    const record = await bound.getContent(id, { userId: scoped });
    if (!record) throw new NotFoundError(`Content not found: ${id}`);
    if (edit && scoped !== undefined && record.user_id === null)
      throw new ForbiddenError(`Cannot ${edit} shared content`);
    return record;
  };

  // The upload's own body limit: larger than the API's, and a clear 413 naming it.
  app.use(
    "/knowledge/content",
    bodyLimit({
      maxSize: policy.maxBytes + 64 * 1024,
      onError: (c) =>
        errorResponse(c, 413, `the upload is larger than the limit of ${policy.maxBytes} bytes`, "payload_too_large"),
    }),
  );

  handle(app, uploadContent, async (c) => {
    const q = c.req.valid("query");
    const form = c.req.valid("form");
    const { kb, bound } = await resolve(c, q);
    const scoped = scopedUserId(c);
    const input = await policy.contentInput(form, kb);
    if (input.url) await checkRemoteUrl(input.url);
    const record = await bound.addPending({ ...input, userId: scoped ?? null });
    const { bytes, ...rest } = input;
    const payload = {
      knowledge_id: kb.id,
      content_id: record.id,
      input: { ...rest, userId: scoped ?? null },
      ...(bytes
        ? await keepUpload(
            bytes,
            { mimeType: input.contentType ?? "application/octet-stream", fileName: input.fileName },
            opts.media,
          )
        : {}),
    };
    const { jobs, queue } = c.env;
    if (opts.queue?.durable && jobs && queue) {
      await enqueueKnowledgeJob(
        { jobs, queue },
        knowledgeJobInput(payload, {
          userId: scoped ?? null,
          createdAt: record.created_at ?? 0,
          maxAttempts: opts.queue.maxAttempts ?? 3,
          maxDepth: opts.queue.maxDepth ?? 10_000,
          maxUserDepth: userCaps(opts.queue).maxJobsPerUser,
        }),
      );
    } else {
      // No durable queue: ingested after the answer, as agno's BackgroundTasks do.
      const work = bound.process(record.id, { ...input, userId: scoped ?? null, id: record.id }).catch((error) => {
        console.error(`knowledge content ${record.id}: ingestion failed: ${String(error)}`);
      });
      keepAlive(c)?.(work);
    }
    return c.json(
      {
        ...nulls,
        id: record.id,
        name: record.name ?? null,
        description: record.description ?? null,
        metadata: record.metadata ?? null,
        status: "processing" as const,
      },
      202,
    );
  });

  handle(app, remoteContent, async (c) => {
    const q = c.req.valid("query");
    knowledgeFor(c, bases, q);
    const form = c.req.valid("form");
    throw new BadRequestError(
      `Unknown content source: ${form.config_id}. Check /knowledge/config for available sources.`,
    );
  });

  handle(app, updateContent, async (c) => {
    const q = c.req.valid("query");
    const { content_id } = c.req.valid("param");
    const fields = c.req.valid("form");
    let metadata: Record<string, unknown> | undefined;
    if (fields.metadata && fields.metadata.trim()) {
      try {
        metadata = JSON.parse(fields.metadata) as Record<string, unknown>;
      } catch {
        throw new ValidationError("Invalid JSON format for metadata", "metadata");
      }
      if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata))
        throw new ValidationError("metadata must be a JSON object", "metadata");
    }
    const { kb, bound } = await resolve(c, q);
    const scoped = scopedUserId(c);
    await owned(bound, content_id, scoped, "modify");
    if (fields.reader_id && !(fields.reader_id in kb.config().readers))
      throw new ValidationError(`Invalid reader_id: ${fields.reader_id}`, "reader_id");
    const updated = await bound.patchContent(
      content_id,
      {
        ...(fields.name?.trim() ? { name: fields.name } : {}),
        ...(fields.description?.trim() ? { description: fields.description } : {}),
        ...(metadata ? { metadata } : {}),
      },
      { userId: scoped },
    );
    return c.json(contentView(updated), 200);
  });

  handle(app, listContent, async (c) => {
    const q = c.req.valid("query");
    const { bound } = await resolve(c, q);
    const page = Math.max(1, q.page);
    const { items, total } = await bound.listContents({
      limit: q.limit,
      page,
      sortBy: q.sort_by,
      sortOrder: q.sort_order,
      userId: scopedUserId(c),
    });
    return c.json(
      { data: items.map(contentView), meta: paginationInfo({ page: q.page, limit: q.limit, total_count: total }) },
      200,
    );
  });

  handle(app, getContent, async (c) => {
    const q = c.req.valid("query");
    const { content_id } = c.req.valid("param");
    const { bound } = await resolve(c, q);
    return c.json(contentView(await owned(bound, content_id, scopedUserId(c))), 200);
  });

  handle(app, deleteContent, async (c) => {
    const q = c.req.valid("query");
    const { content_id } = c.req.valid("param");
    const { bound } = await resolve(c, q);
    const scoped = scopedUserId(c);
    await owned(bound, content_id, scoped, "delete");
    await bound.deleteContent(content_id, { userId: scoped });
    return c.json({ id: content_id }, 200);
  });

  handle(app, deleteAll, async (c) => {
    const q = c.req.valid("query");
    const { bound } = await resolve(c, q);
    // A user clears their own contents only, never the shared ones their reads also see; a
    // principal without a user id owns nothing here, and shared contents are an admin's to clear.
    const scoped = scopedUserId(c);
    if (scoped !== null) await bound.deleteAllContents({ userId: scoped });
    return c.json("success" as const, 200);
  });

  handle(app, contentStatus, async (c) => {
    const q = c.req.valid("query");
    const { content_id } = c.req.valid("param");
    const { bound } = await resolve(c, q);
    const record = await owned(bound, content_id, scopedUserId(c));
    return c.json(
      { id: content_id, status: statusOf(record.status), status_message: record.status_message ?? "" },
      200,
    );
  });

  handle(app, search, async (c) => {
    const started = Date.now();
    const body = c.req.valid("json");
    const { kb, bound } = await resolve(c, {
      db_id: body.db_id ?? undefined,
      knowledge_id: body.knowledge_id ?? undefined,
    });
    if (body.vector_db_ids && !body.vector_db_ids.includes(kb.vectorDb.id))
      throw new ValidationError(
        `None of the provided Vector DB IDs ${JSON.stringify(body.vector_db_ids)} match the knowledge base Vector DB ID ${kb.vectorDb.id}`,
        "vector_db_ids",
      );
    const limit = body.meta?.limit ?? 20;
    const page = body.meta?.page ?? 1;
    const results = await bound.search(body.query, {
      ...(body.max_results ? { maxResults: body.max_results } : {}),
      ...(body.filters ? { filters: body.filters as never } : {}),
      ...(body.search_type ? { searchType: body.search_type } : {}),
      userId: scopedUserId(c),
    });
    const data = results.slice((page - 1) * limit, page * limit).map(searchResultView);
    return c.json(
      {
        data,
        meta: {
          ...paginationInfo({ page, limit, total_count: results.length }),
          search_time_ms: Date.now() - started,
        },
      },
      200,
    );
  });

  handle(app, config, async (c) => {
    const q = c.req.valid("query");
    const { kb, bound } = await resolve(c, q);
    const info = kb.config();
    const scoped = scopedUserId(c);
    let filters = info.filters;
    if (scoped !== undefined) {
      // Filter keys come from content metadata: a user sees those of the contents they may read.
      const { items } = await bound.listContents({ limit: 1000, page: 1, userId: scoped });
      filters = [...new Set(items.flatMap((r) => Object.keys(r.metadata ?? {})))].sort();
    }
    return c.json(knowledgeConfigView(info, filters), 200);
  });

  handle(app, sources, async (c) => {
    const { knowledge_id } = c.req.valid("param");
    const q = c.req.valid("query");
    knowledgeFor(c, bases, { knowledge_id, db_id: q.db_id });
    return c.json([], 200);
  });

  handle(app, sourceFiles, async (c) => {
    const { knowledge_id, source_id } = c.req.valid("param");
    const q = c.req.valid("query");
    knowledgeFor(c, bases, { knowledge_id, db_id: q.db_id });
    throw new NotFoundError(`Content source not found: ${source_id}`);
  });

  return app;
}

/** The fields of agno's ContentResponseSchema an accepted upload leaves unset. */
const nulls = {
  type: null,
  size: null,
  linked_to: null,
  access_count: null,
  status_message: null,
  created_at: null,
  updated_at: null,
};

export type { ContentInput };
