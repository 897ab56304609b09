import { z } from "zod";
import { BadRequestError, NotConfiguredError, NotFoundError } from "../../errors.js";
import { RUN_INPUT_FIELDS } from "../../agent/media.js";
import type { RunRecord } from "../../db/types.js";
import { MESSAGE_MEDIA_FIELDS, type MediaRecord } from "../../models/message.js";
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
  summary:
    "A medium of a session's runs: its bytes, or with redirect=true (S3) a redirect to a short-lived presigned URL",
  description:
    "`storage_key` is a run's `media_reference.storage_key`, as a path: its slashes as they are (`/sessions/s1/media/media/<sha256>`) " +
    "or encoded (`media%2F<sha256>`); a `..` segment is refused. Only media the session's own runs recorded (their input, message and output media; " +
    "never references in metadata, session state or tool results, never offloaded tool results) are served, to whoever may read the session. `redirect=true` answers 302 to a presigned URL where the storage can sign one (S3), else 400.",
  scope: { resource: "sessions", action: "read", idParam: "session_id" },
  request: {
    params: z.object({
      session_id: idSchema,
      storage_key: z
        .string()
        .min(1)
        .max(1024)
        .refine((key) => !key.split("/").some((segment) => segment === ".." || segment === "."), {
          message: "must not hold a `.` or `..` segment",
        })
        .describe("The medium's storage key: a path, slashes allowed"),
    }),
    query: z.object({ redirect: flag, user_id: idSchema.optional(), db_id: idSchema.optional() }),
  },
  responses: {
    200: {
      description: "The bytes, with the media's content type",
      content: { "application/octet-stream": { schema: z.string().meta({ format: "binary" }) } },
    },
    302: { description: "`Location`: a presigned URL (redirect=true)" },
    304: { description: "Not modified (If-None-Match matched the content hash)" },
    400: {
      description: "redirect=true on a storage that cannot presign URLs",
      content: { "application/json": { schema: errorSchema } },
    },
    404: {
      description: "No such session for the caller, or the session references no such media",
      content: { "application/json": { schema: errorSchema } },
    },
  },
});

/**
 * Where Hono routes the media route: the storage key is the rest of the path, slashes and all
 * (agno's `{storage_key:path}`), which Hono spells as a parameter with a pattern. The OpenAPI
 * document keeps the plain `{storage_key}`.
 */
const ROUTING_PATH = "/sessions/{session_id}/media/{storage_key{.+}}";

/**
 * `GET /sessions/{session_id}/media/{storage_key}`. `storages` are every MediaStorage the
 * AgentOS and its agents use; a reference is served from the one holding its backend and bucket.
 */
export function mediaRoutes(storages: MediaStorage[]) {
  const app = routeApp();
  const { middleware: _guard, ...documented } = getMedia;
  app.openAPIRegistry.registerPath(documented);

  handle(app, { ...getMedia, path: ROUTING_PATH, hide: true }, async (c) => {
    const q = c.req.valid("query");
    const { session_id, storage_key } = c.req.valid("param");
    // The session's runs decide what may be read: isolation applies through the session read.
    const session = await dbFor(c, q.db_id).getSession(session_id, readScope(c, q.user_id));
    const ref = session && recordedReference(session.runs, session.record.user_id ?? null, storage_key);
    if (!ref) throw new NotFoundError(`media ${storage_key} not found in session ${session_id}`);
    const holding = storages.filter((s) => s.holds(ref));
    if (holding.length === 0)
      throw new NotConfiguredError(
        `media ${storage_key} is in ${ref.storage_backend} bucket ${ref.bucket}, which this AgentOS has no media storage for`,
      );
    // Only objects under a media prefix: the bucket holds other things too (offloaded tool results share it on Workers).
    const storage = holding.find((s) => ref.storage_key.startsWith(s.prefix));
    if (!storage) throw new NotFoundError(`media ${storage_key} not found in session ${session_id}`);

    if (q.redirect) {
      if (!storage.canPresign)
        throw new BadRequestError(
          `redirect: ${storage.backend} media storage cannot presign URLs; leave redirect out to get the bytes`,
        );
      return new Response(null, {
        status: 302,
        headers: { location: await storage.presignedUrl(ref.storage_key), "cache-control": "no-store" },
      });
    }
    const etag = ref.content_hash ? `"${ref.content_hash}"` : undefined;
    const headers = mediaHeaders(ref, etag);
    if (
      etag &&
      c.req
        .header("if-none-match")
        ?.split(",")
        .some((t) => t.trim() === etag)
    )
      return new Response(null, { status: 304, headers });
    const object = await storage.open(ref.storage_key);
    if (!object)
      throw new NotFoundError(
        `media ${storage_key} of session ${session_id} is missing from ${storage.backend} bucket ${storage.bucket}`,
      );
    headers.set("content-length", String(object.size));
    return new Response(object.body, { status: 200, headers });
  });

  return app;
}

/**
 * The reference to `storageKey` that the server itself recorded in one of the runs: in a run's
 * input media, its messages' media or its output media, the lists media offload writes
 * (media-offload.ts). Nothing else counts: `metadata`, `session_state`, `dependencies` and tool
 * results are the user's or the model's words, and a reference planted there would name
 * another user's object. The run must also be the session owner's: media recorded in it were
 * uploaded by that user (keys are content hashes, so they had the bytes).
 */
function recordedReference(runs: RunRecord[], owner: string | null, storageKey: string): MediaReference | undefined {
  for (const run of runs) {
    if ((run.user_id ?? null) !== owner) continue;
    const input = isObject(run.input) ? run.input : {};
    const lists = [
      ...Object.values(RUN_INPUT_FIELDS).map((field) => input[field]),
      ...Object.values(MESSAGE_MEDIA_FIELDS).map((field) => run[field]),
      ...(Array.isArray(run.messages) ? run.messages : []).flatMap((m) =>
        isObject(m) ? Object.values(MESSAGE_MEDIA_FIELDS).map((field) => m[field]) : [],
      ),
    ];
    for (const list of lists) {
      if (!Array.isArray(list)) continue;
      for (const record of list) {
        const ref = isObject(record) ? referenceOf(record as unknown as MediaRecord) : undefined;
        if (ref?.storage_key === storageKey) return ref;
      }
    }
  }
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
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
    ...(etag
      ? { etag, "cache-control": "private, max-age=31536000, immutable" }
      : { "cache-control": "private, no-cache" }),
    "x-content-type-options": "nosniff",
    "content-security-policy": "default-src 'none'; sandbox",
    "content-disposition": `${inline ? "inline" : "attachment"}${name}`,
  });
}
