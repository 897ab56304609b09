import { z } from "zod";
import { BadRequestError, NotConfiguredError, NotFoundError } from "../../errors.js";
import type { RunRecord } from "../../db/types.js";
import { referenceOf } from "../../offload/media-offload.js";
import type { MediaReference, MediaStorage } from "../../offload/media-storage.js";
import { readScope } from "../auth/scopes.js";
import { defineRoute, errorSchema, handle, idSchema, routeApp } from "../route.js";
import { flag } from "../run-input.js";
import { dbFor } from "./sessions.js";

const getMedia = defineRoute({
  method: "get",
  path: "/sessions/{session_id}/media/{storage_key}",
  tags: ["Sessions"],
  summary: "A medium of a session's runs: its bytes, or with redirect=true (S3) a redirect to a short-lived presigned URL",
  description:
    "`storage_key` is a run's `media_reference.storage_key`, URL-encoded as one path segment (its `/` as `%2F`: " +
    "`/sessions/s1/media/media%2F<sha256>`). Only media that the session's runs reference are served, to whoever may " +
    "read the session. `redirect=true` answers 302 to a presigned URL where the storage can sign one (S3), else 400.",
  scope: { resource: "sessions", action: "read", idParam: "session_id" },
  request: {
    params: z.object({ session_id: idSchema, storage_key: z.string().min(1).max(1024) }),
    query: z.object({ redirect: flag, user_id: idSchema.optional(), db_id: idSchema.optional() }),
  },
  responses: {
    200: { description: "The bytes, with the media's content type", content: { "application/octet-stream": { schema: z.string().meta({ format: "binary" }) } } },
    302: { description: "`Location`: a presigned URL (redirect=true)" },
    304: { description: "Not modified (If-None-Match matched the content hash)" },
    400: { description: "redirect=true on a storage that cannot presign URLs", content: { "application/json": { schema: errorSchema } } },
    404: { description: "No such session for the caller, or the session references no such media", content: { "application/json": { schema: errorSchema } } },
  },
});

/**
 * `GET /sessions/{session_id}/media/{storage_key}`. `storages` are every MediaStorage the
 * AgentOS and its agents use; a reference is served from the one holding its backend and bucket.
 */
export function mediaRoutes(storages: MediaStorage[]) {
  const app = routeApp();

  handle(app, getMedia, async (c) => {
    const q = c.req.valid("query");
    const { session_id, storage_key } = c.req.valid("param");
    // The session's runs decide what may be read: isolation applies through the session read.
    const session = await dbFor(c, q.db_id).getSession(session_id, readScope(c, q.user_id));
    const ref = session && findReference(session.runs, storage_key);
    if (!ref) throw new NotFoundError(`media ${storage_key} not found in session ${session_id}`);
    const storage = storages.find((s) => s.holds(ref));
    if (!storage) throw new NotConfiguredError(`media ${storage_key} is in ${ref.storage_backend} bucket ${ref.bucket}, which this AgentOS has no media storage for`);

    if (q.redirect) {
      if (!storage.canPresign) throw new BadRequestError(`redirect: ${storage.backend} media storage cannot presign URLs; leave redirect out to get the bytes`);
      return new Response(null, { status: 302, headers: { location: await storage.presignedUrl(ref.storage_key), "cache-control": "no-store" } });
    }
    const etag = ref.content_hash ? `"${ref.content_hash}"` : undefined;
    const headers = mediaHeaders(ref, etag);
    if (etag && c.req.header("if-none-match")?.split(",").some((t) => t.trim() === etag)) return new Response(null, { status: 304, headers });
    const object = await storage.open(ref.storage_key);
    if (!object) throw new NotFoundError(`media ${storage_key} of session ${session_id} is missing from ${storage.backend} bucket ${storage.bucket}`);
    headers.set("content-length", String(object.size));
    return new Response(object.body, { status: 200, headers });
  });

  return app;
}

/** The first reference to `storageKey` anywhere in the runs (input, messages, output lists). */
function findReference(runs: RunRecord[], storageKey: string): MediaReference | undefined {
  const pending: unknown[] = [...runs];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value !== "object" || value === null) continue;
    if (Array.isArray(value)) {
      for (const item of value) pending.push(item);
      continue;
    }
    const ref = referenceOf(value as Record<string, unknown> & { id: string });
    if (ref?.storage_key === storageKey) return ref;
    for (const item of Object.values(value)) pending.push(item);
  }
  return undefined;
}

/**
 * The bytes' type as the run recorded it. Stored bytes come from users, and this is the API's
 * own origin: a sandboxing CSP and nosniff keep an uploaded HTML or SVG file from running as a
 * page here, and documents download instead of opening. Bytes with a known hash cannot change
 * under their key: cacheable for good, privately (the answer depends on who asks).
 */
function mediaHeaders(ref: MediaReference, etag: string | undefined): Headers {
  const inline = ref.media_type === "image" || ref.media_type === "audio" || ref.media_type === "video";
  const name = ref.filename ? `; filename*=UTF-8''${encodeURIComponent(ref.filename)}` : "";
  return new Headers({
    "content-type": ref.mime_type || "application/octet-stream",
    ...(etag ? { etag, "cache-control": "private, max-age=31536000, immutable" } : { "cache-control": "private, no-cache" }),
    "x-content-type-options": "nosniff",
    "content-security-policy": "default-src 'none'; sandbox",
    "content-disposition": `${inline ? "inline" : "attachment"}${name}`,
  });
}
