import { z } from "@hono/zod-openapi";
import { AgnoError, ValidationError } from "../../errors.js";
import type { ContentInput } from "../../knowledge/content.js";
import { UnsupportedContentTypeError } from "../../knowledge/errors.js";
import type { Knowledge } from "../../knowledge/knowledge.js";

/** The uploaded file is larger than the deployment's upload limit. */
export class UploadTooLargeError extends AgnoError {
  override readonly status = 413;
  override readonly errorId = "payload_too_large";
}

/** Forms send every field as text; an empty one is absent. */
const text = (max: number) => z.preprocess((v) => (v === "" ? undefined : v), z.string().max(max).optional());
const count = z.preprocess(
  (v) => (v === "" || v === undefined ? undefined : typeof v === "string" && /^\s*\d+\s*$/.test(v) ? Number(v) : v),
  z.int().min(1).max(1_000_000).optional(),
);
const file = z
  .custom<File>((v) => v instanceof File, { message: "must be an uploaded file" })
  .openapi({ type: "string", format: "binary" });

/** agno's upload form (`upload_content`), field for field. */
export const uploadFields = z.object({
  name: text(255).describe("Content name (from the file or URL if not given)"),
  description: text(1000),
  url: text(4096).describe("A URL to fetch the content from (a single URL, or a JSON array holding one)"),
  metadata: text(100_000).describe(
    "JSON metadata object (text that is not JSON is kept as {value: text}, as agno does)",
  ),
  file: file.optional(),
  text_content: text(10 * 1024 * 1024),
  reader_id: text(255),
  chunker: text(255),
  chunk_size: count,
  chunk_overlap: z.preprocess(
    (v) => (v === "" || v === undefined ? undefined : typeof v === "string" && /^\s*\d+\s*$/.test(v) ? Number(v) : v),
    z.int().min(0).max(1_000_000).optional(),
  ),
});
export type UploadFields = z.infer<typeof uploadFields>;

/** A file's media type from its name, where the upload did not say (browsers often send none for Markdown). */
const BY_EXTENSION: Record<string, string> = {
  ".txt": "text/plain",
  ".md": "text/markdown",
  ".markdown": "text/markdown",
  ".html": "text/html",
  ".htm": "text/html",
  ".json": "application/json",
  ".csv": "text/csv",
  ".pdf": "application/pdf",
};
const EXTENSION_OF: Record<string, string> = {
  "text/plain": ".txt",
  "text/markdown": ".md",
  "text/x-markdown": ".md",
  "text/html": ".html",
  "application/json": ".json",
  "text/csv": ".csv",
  "application/csv": ".csv",
  "application/pdf": ".pdf",
};

export interface UploadPolicy {
  /** largest file accepted, in bytes (default 10 MiB) */
  maxBytes: number;
  /** the upload form as a knowledge content, checked: one source, a supported type, known reader and chunker */
  contentInput(form: UploadFields, kb: Knowledge): Promise<ContentInput>;
}

export function keepUploadPolicy(opts: Partial<Pick<UploadPolicy, "maxBytes">> = {}): UploadPolicy {
  const maxBytes = opts.maxBytes ?? 10 * 1024 * 1024;
  return {
    maxBytes,
    async contentInput(form, kb) {
      const sources = [form.file, form.text_content, form.url].filter((s) => s !== undefined).length;
      if (sources === 0) throw new ValidationError("send the content as `file`, `text_content` or `url`", "file");
      if (sources > 1) throw new ValidationError("send one of `file`, `text_content` or `url`, not several", "file");
      const info = configOf(kb);
      if (form.reader_id && info && !(form.reader_id in info.readers))
        throw new ValidationError(`Invalid reader_id: ${form.reader_id}`, "reader_id");
      if (form.chunker && info && !(form.chunker in info.chunkers))
        throw new ValidationError(
          `Invalid chunker: ${form.chunker}; available: ${Object.keys(info.chunkers).join(", ")}`,
          "chunker",
        );
      const base: ContentInput = {
        ...(form.description !== undefined ? { description: form.description } : {}),
        ...(form.metadata !== undefined ? { metadata: metadataOf(form.metadata) } : {}),
        ...(form.reader_id ? { readerId: form.reader_id } : {}),
        ...(form.chunker ? { chunker: form.chunker } : {}),
        ...(form.chunk_size !== undefined ? { chunkSize: form.chunk_size } : {}),
        ...(form.chunk_overlap !== undefined ? { chunkOverlap: form.chunk_overlap } : {}),
        skipIfExists: true,
      };
      if (form.file) {
        const f = form.file;
        if (f.size > maxBytes)
          throw new UploadTooLargeError(`the file is ${f.size} bytes; the upload limit is ${maxBytes} bytes`);
        const ext = extensionOf(f.name);
        const type = (f.type || "").split(";")[0]!.trim().toLowerCase() || BY_EXTENSION[ext] || "";
        if (info && !supported(info.readersForType, type, ext))
          throw new UnsupportedContentTypeError(type || ext || "unknown");
        if (!info && !type) throw new UnsupportedContentTypeError(ext || "unknown");
        return {
          ...base,
          name: form.name ?? (f.name || undefined),
          bytes: new Uint8Array(await f.arrayBuffer()),
          contentType: type || BY_EXTENSION[ext],
          ...(f.name ? { fileName: f.name } : {}),
        };
      }
      if (form.text_content !== undefined)
        return { ...base, ...(form.name ? { name: form.name } : {}), textContent: form.text_content };
      const url = urlOf(form.url!);
      return { ...base, name: form.name ?? url, url };
    },
  };
}

function configOf(kb: Knowledge) {
  try {
    return kb.config();
  } catch {
    return undefined; // a knowledge base that cannot describe itself yet: the ingestion decides
  }
}

/** agno keeps metadata that is not a JSON object as `{value: text}`. */
function metadataOf(raw: string): Record<string, unknown> {
  try {
    const parsed = JSON.parse(raw) as unknown;
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : { value: parsed };
  } catch {
    return { value: raw };
  }
}

/** agno's `url` field: one URL, or a JSON array of them (one here: each upload is one content). */
function urlOf(raw: string): string {
  const trimmed = raw.trim();
  if (!trimmed.startsWith("[")) return trimmed;
  let parsed: unknown;
  try {
    parsed = JSON.parse(trimmed);
  } catch {
    throw new ValidationError("url: not a URL, nor a JSON array of URLs", "url");
  }
  if (!Array.isArray(parsed) || parsed.length !== 1 || typeof parsed[0] !== "string")
    throw new ValidationError("url: send one URL per upload", "url");
  return parsed[0];
}

function extensionOf(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot).toLowerCase() : "";
}

/** Whether some reader takes this type, however the knowledge base keys its readers (".pdf", "pdf" or a MIME type). */
function supported(byType: Record<string, string[]>, type: string, ext: string): boolean {
  const candidates = [ext, ext.slice(1), type, EXTENSION_OF[type], EXTENSION_OF[type]?.slice(1)];
  return candidates.some((k) => k !== undefined && k !== "" && (byType[k]?.length ?? 0) > 0);
}
