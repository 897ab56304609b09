import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { MediaInput } from "../agent/media.js";
import { ValidationError } from "../errors.js";
import { idSchema, jsonObject } from "./route.js";

/*
 * Run and continue bodies arrive as JSON or as agno's forms (its Python client posts
 * `application/x-www-form-urlencoded`, or multipart with files). In a form every value is a
 * string: booleans are "true"/"false" and objects are JSON text. One schema accepts both, so a
 * field means the same thing however it was sent.
 */

/** `""` in a form means the field was left empty: absent. */
const blankIsAbsent = (v: unknown) => (v === "" ? undefined : v);

/** A boolean, or the strings forms send for one. */
export const flag = z.preprocess((v) => {
  const value = blankIsAbsent(v);
  return value === "true" ? true : value === "false" ? false : value;
}, z.boolean().optional());

/** A value that forms send as JSON text; invalid JSON is reported as such, naming the field. */
export function jsonText<T extends z.ZodType>(schema: T) {
  return z.preprocess((v, ctx) => {
    const value = blankIsAbsent(v);
    if (typeof value !== "string") return value;
    try {
      return JSON.parse(value);
    } catch {
      ctx.addIssue({ code: "custom", message: "must be valid JSON" });
      return z.NEVER;
    }
  }, schema.optional());
}

const optionalId = z.preprocess(blankIsAbsent, idSchema.optional());

/** Media sent inside JSON: base64 (or a data: URL) or an http(s) URL, with its type. */
export const mediaItem = z
  .object({
    kind: z.enum(["image", "audio", "video", "file"]).optional(),
    data: z
      .string()
      .max(30 * 1024 * 1024)
      .optional(),
    url: z.string().max(4096).optional(),
    mime_type: z.string().min(1).max(255),
    filename: z.string().max(255).optional(),
  })
  .strict();
export const mediaList = z.array(mediaItem).max(32);
const file = z
  .custom<File>((v) => v instanceof File, { message: "must be an uploaded file" })
  .openapi({ type: "string", format: "binary" });
const files = z.union([file, z.array(file).max(32)]).optional();

export const runRequest = z
  .object({
    message: z.string().min(1).max(100_000),
    stream: flag,
    background: flag,
    session_id: optionalId,
    user_id: optionalId,
    session_state: jsonText(jsonObject),
    dependencies: jsonText(jsonObject),
    metadata: jsonText(jsonObject),
    /** uploads in a multipart form (agno's `files`), classified by their content type */
    files,
    "files[]": files,
    /** media inside JSON (or a form field of JSON text): `[{mime_type, data | url, filename?}]` */
    media: jsonText(mediaList),
    /** agno's `version`: run this config version of a stored component instead of its current one */
    version: z.coerce
      .number()
      .int()
      .min(1)
      .max(2 ** 31 - 1)
      .optional(),
  })
  .meta({
    id: "RunRequest",
    description:
      'JSON, or agno\'s form fields (objects as JSON text, booleans as "true"/"false"); uploads as multipart `files`',
  });

const resolutionList = z.array(jsonObject).max(100);

/** agno's `continue_from`: "end", "last_user", or a message boundary (forms send it as text). */
const continueFrom = z.preprocess(
  (v) => {
    const value = blankIsAbsent(v);
    return typeof value === "string" && /^\s*-?\d+\s*$/.test(value)
      ? Number(value)
      : typeof value === "string"
        ? value.trim()
        : value;
  },
  z.union([z.literal("end"), z.literal("last_user"), z.number().int().min(0).max(1_000_000)]).optional(),
);

export const continueRequest = z
  .object({
    tools: jsonText(resolutionList),
    requirements: jsonText(resolutionList),
    /** a new user message appended before the model answers again */
    input: z.preprocess(blankIsAbsent, z.string().max(100_000).optional()),
    continue_from: continueFrom,
    fork: flag,
    regenerate: flag,
    replace_original: flag,
    additional_instructions: z.preprocess(blankIsAbsent, z.string().max(100_000).optional()),
    stream: flag,
    user_id: optionalId,
    session_id: optionalId,
  })
  .meta({
    id: "ContinueRequest",
    description:
      "A paused run's resolved `tools` (agno's ToolExecution list) or `requirements`; or, for a run waiting on nobody, " +
      'how it goes on: `input` (a follow-up message), `continue_from` ("end", "last_user" or a message index), ' +
      "`fork` (in a new sibling run), `regenerate` (answer the last message again; `replace_original`, " +
      "`additional_instructions`). A finished run always goes on in a new run.",
  });

/** A position in a run's event log: -1 (before the first) up to what its INTEGER column holds. */
export const eventIndex = z.number().int().min(-1).max(2_147_483_647);

/**
 * The standard SSE reconnect header, when it holds a number: out of range it is the caller's 422
 * (the log cannot hold such a position), anything else is not a position and is ignored.
 */
export function lastEventIdOf(header: string | undefined): number | undefined {
  if (header === undefined || !/^-?\d+$/.test(header.trim())) return undefined;
  const checked = eventIndex.safeParse(Number(header.trim()));
  if (!checked.success)
    throw new ValidationError(
      `Last-Event-ID: must be an event position from -1 to ${eventIndex.maxValue}`,
      "Last-Event-ID",
    );
  return checked.data;
}

export const resumeRequest = z
  .object({
    last_event_index: z.preprocess(
      (v) => (typeof v === "string" && v !== "" ? Number(v) : blankIsAbsent(v)),
      eventIndex.optional(),
    ),
    user_id: optionalId,
    session_id: optionalId,
  })
  .meta({
    id: "ResumeRequest",
    description: "Re-attach to a run's event stream after the event with this index (-1 or absent: from the start)",
  });

/** Body content accepted by run-like routes: the same schema as JSON, urlencoded or multipart. */
export function runBody<T extends z.ZodType>(schema: T) {
  return {
    required: false,
    content: {
      "application/json": { schema },
      "application/x-www-form-urlencoded": { schema },
      "multipart/form-data": { schema },
    },
  };
}

const FORM = /^(multipart\/form-data|application\/x-www-form-urlencoded)/i;

/**
 * The validated body of a run-like route, whichever way it was sent. A request with no body
 * type at all cannot carry the required fields.
 */
export function bodyOf<T extends z.ZodType>(c: Context, _schema: T): z.output<T> {
  const type = c.req.header("content-type");
  if (!type)
    throw new ValidationError(
      "send the body as JSON or as a form (application/x-www-form-urlencoded or multipart/form-data)",
      "body",
    );
  return (FORM.test(type) ? c.req.valid("form" as never) : c.req.valid("json" as never)) as z.output<T>;
}

/** A run's media from uploaded files and JSON items, in the SDK's form. */
export async function mediaOf(body: {
  files?: File | File[];
  "files[]"?: File | File[];
  media?: z.infer<typeof mediaList>;
}): Promise<MediaInput[] | undefined> {
  const uploads = [body.files, body["files[]"]].flatMap((f) => (f === undefined ? [] : Array.isArray(f) ? f : [f]));
  const fromJson = (body.media ?? []).map((m): MediaInput => ({
    kind: m.kind,
    data: m.data,
    url: m.url,
    mimeType: m.mime_type,
    filename: m.filename,
  }));
  if (uploads.length + fromJson.length > 32)
    throw new ValidationError("at most 32 files and media items per run", "files");
  const fromUploads = await Promise.all(
    uploads.map(async (file): Promise<MediaInput> => ({
      data: new Uint8Array(await file.arrayBuffer()),
      mimeType: file.type || "application/octet-stream",
      filename: file.name || undefined,
    })),
  );
  const all = [...fromUploads, ...fromJson];
  return all.length > 0 ? all : undefined;
}
