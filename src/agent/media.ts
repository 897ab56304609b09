import { base64ToBytes, bytesToBase64 } from "../base64.js";
import { ValidationError } from "../errors.js";
import type { MediaKind, MediaRecord } from "../models/message.js";

export type { MediaKind, MediaRecord } from "../models/message.js";

/**
 * An image, audio clip, video or document given to a run: its bytes (`data`) or a `url` the
 * provider fetches itself (http or https; nothing here downloads it).
 *
 * @example
 * await agent.run("What is in this picture?", { media: [{ data: pngBytes, mimeType: "image/png" }] });
 * await agent.run("Summarise", { media: [{ data: "data:application/pdf;base64,JVBERi0…", mimeType: "application/pdf", filename: "q3.pdf" }] });
 */
export interface MediaInput {
  /** default: from the mime type (`image/*`, `audio/*`, `video/*`, anything else a file) */
  kind?: MediaKind;
  /** the bytes: raw, base64, or a `data:` URL */
  data?: Uint8Array | ArrayBuffer | string;
  url?: string;
  /** one of the types agno accepts for the kind (e.g. `image/png`, `audio/mpeg`, `application/pdf`, `text/plain`) */
  mimeType: string;
  /** kept for files (agno's File.filename); agno's Image, Audio and Video carry no name */
  filename?: string;
}

/** Bounds on a run's media; sizes in bytes (decoded), items given by URL count only towards `maxItems`. */
export interface MediaLimits {
  maxItemBytes?: number;
  maxTotalBytes?: number;
  maxItems?: number;
}

const MiB = 1024 * 1024;
export const DEFAULT_MEDIA_LIMITS: Required<MediaLimits> = {
  maxItemBytes: 20 * MiB,
  maxTotalBytes: 50 * MiB,
  maxItems: 32,
};

/** The types agno's AgentOS accepts per kind (agno.os.utils IMAGE/AUDIO/VIDEO/DOCUMENT_MIME_TYPES). */
export const SUPPORTED_MIME_TYPES: Record<MediaKind, ReadonlySet<string>> = {
  image: new Set([
    "image/png",
    "image/jpeg",
    "image/jpg",
    "image/gif",
    "image/webp",
    "image/bmp",
    "image/tiff",
    "image/tif",
    "image/avif",
    "image/heic",
    "image/heif",
  ]),
  audio: new Set([
    "audio/wav",
    "audio/wave",
    "audio/mp3",
    "audio/mpeg",
    "audio/ogg",
    "audio/mp4",
    "audio/m4a",
    "audio/aac",
    "audio/flac",
  ]),
  video: new Set([
    "video/x-flv",
    "video/quicktime",
    "video/mpeg",
    "video/mpegs",
    "video/mpgs",
    "video/mpg",
    "video/mp4",
    "video/webm",
    "video/wmv",
    "video/3gpp",
  ]),
  file: new Set([
    "application/pdf",
    "application/json",
    "application/x-javascript",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "application/msword",
    "application/vnd.ms-powerpoint",
    "application/vnd.ms-excel",
    "application/vnd.ms-outlook",
    "text/javascript",
    "application/x-python",
    "text/x-python",
    "text/plain",
    "text/html",
    "text/css",
    "text/markdown",
    "text/csv",
    "text/xml",
    "text/rtf",
  ]),
};

/** A checked media input, with its content already in the encoding rows keep (see MediaRecord.content). */
export interface CheckedMedia {
  kind: MediaKind;
  mimeType: string;
  /** base64, or the text of a `text/*` file */
  content?: string;
  url?: string;
  /** decoded bytes; unknown for a URL */
  size?: number;
  filename?: string;
}

/** A run's media as agno's RunInput lists them (`audios` here; a message names the same list `audio`). */
export interface RunMedia {
  images?: MediaRecord[];
  audios?: MediaRecord[];
  videos?: MediaRecord[];
  files?: MediaRecord[];
}

export const RUN_INPUT_FIELDS = {
  image: "images",
  audio: "audios",
  video: "videos",
  file: "files",
} as const satisfies Record<MediaKind, keyof RunMedia>;

/**
 * Checks a run's media and brings each to the encoding stored rows keep. Throws a
 * ValidationError naming the field (`media.2.mimeType`) for anything wrong, before the run
 * writes anything.
 */
export function checkMedia(items: unknown, limits: MediaLimits = {}): CheckedMedia[] {
  if (items === undefined) return [];
  const { maxItemBytes, maxTotalBytes, maxItems } = { ...DEFAULT_MEDIA_LIMITS, ...limits };
  if (!Array.isArray(items)) throw new ValidationError("media must be an array", "media");
  if (items.length > maxItems)
    throw new ValidationError(`media: ${items.length} items; at most ${maxItems} per run`, "media");
  const checked = items.map((item: unknown, i) => checkItem(item, i, maxItemBytes));
  const total = checked.reduce((sum, m) => sum + (m.size ?? 0), 0);
  if (total > maxTotalBytes)
    throw new ValidationError(`media: ${total} bytes in all; at most ${sizeText(maxTotalBytes)} per run`, "media");
  // Encoded only once everything is known to fit.
  return checked.map(({ raw, ...media }, i) =>
    raw === undefined ? media : { ...media, content: encodeContent(media, raw, i) },
  );
}

/** An item that passed its own checks; `raw` is its bytes, or base64 left as given (canonicalised). */
type ItemCheck = Omit<CheckedMedia, "content"> & { raw?: Uint8Array | string };

function checkItem(item: unknown, i: number, maxBytes: number): ItemCheck {
  const fail = (field: string, problem: string): never => {
    throw new ValidationError(
      `media[${i}]${field ? `.${field}` : ""}: ${problem}`,
      `media.${i}${field ? `.${field}` : ""}`,
    );
  };
  if (typeof item !== "object" || item === null) return fail("", "expected an object with data or url, and mimeType");
  const { kind: givenKind, data, url, mimeType: rawMime, filename } = item as Record<string, unknown>;
  if (typeof rawMime !== "string") return fail("mimeType", "required, a string such as image/png");
  const mimeType = normalizeMimeType(rawMime);
  if (givenKind !== undefined && !(typeof givenKind === "string" && Object.hasOwn(SUPPORTED_MIME_TYPES, givenKind)))
    return fail("kind", "must be image, audio, video or file");
  const kind = (givenKind as MediaKind | undefined) ?? kindOf(mimeType);
  if (!SUPPORTED_MIME_TYPES[kind].has(mimeType)) {
    return fail(
      "mimeType",
      `${mimeType || "(empty)"} is not a supported ${kind} type; supported: ${[...SUPPORTED_MIME_TYPES[kind]].join(", ")}`,
    );
  }
  if (filename !== undefined && typeof filename !== "string") return fail("filename", "must be a string");
  const name = typeof filename === "string" ? normalizeFilename(filename) : undefined;
  const base = { kind, mimeType, ...(name ? { filename: name } : {}) };

  if ((data === undefined) === (url === undefined)) return fail("", "give either data or url");
  if (url !== undefined) return { ...base, url: checkUrl(url, (problem) => fail("url", problem)) };
  // Refuse an oversized string before reading it (whitespace and a data: header allowed for).
  if (typeof data === "string" && data.length > (maxBytes / 3) * 4 * 1.05 + 1024) {
    return fail("data", `about ${Math.floor((data.length / 4) * 3)} bytes; at most ${sizeText(maxBytes)} per item`);
  }
  const raw = readData(data, mimeType, (problem) => fail("data", problem));
  const size = typeof raw === "string" ? base64Size(raw) : raw.byteLength;
  if (size === 0) return fail("data", "is empty");
  if (size > maxBytes) return fail("data", `${size} bytes; at most ${sizeText(maxBytes)} per item`);
  return { ...base, size, raw };
}

/** agno keeps a text file's content as its text, everything else as base64. */
function encodeContent(media: Omit<CheckedMedia, "content">, raw: Uint8Array | string, i: number): string {
  if (!keepsText(media.kind, media.mimeType)) return typeof raw === "string" ? raw : bytesToBase64(raw);
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(
      typeof raw === "string" ? base64ToBytes(raw) : raw,
    );
  } catch {
    throw new ValidationError(`media[${i}].data: a ${media.mimeType} file must be UTF-8 text`, `media.${i}.data`);
  }
}

function keepsText(kind: MediaKind, mimeType: string | undefined): boolean {
  return kind === "file" && (mimeType ?? "").startsWith("text/");
}

/**
 * The bytes a record's inline `content` stands for (undefined when it has none: a URL, or a
 * record whose bytes are in media storage). Media storage stores these bytes.
 */
export function recordBytes(kind: MediaKind, record: MediaRecord): Uint8Array | undefined {
  if (typeof record.content !== "string") return undefined;
  return keepsText(kind, record.mime_type) ? new TextEncoder().encode(record.content) : base64ToBytes(record.content);
}

/** The inline `content` a record holds for these bytes, the inverse of `recordBytes` (a model is sent this). */
export function recordContent(kind: MediaKind, mimeType: string | undefined, bytes: Uint8Array): string {
  return keepsText(kind, mimeType) ? new TextDecoder().decode(bytes) : bytesToBase64(bytes);
}

/**
 * What a run stores of its media: agno's dicts with the bytes inline as base64. With a
 * `mediaStorage` the agent then swaps each `content` for a `media_reference`
 * (offload/media-offload.ts) before the run is first persisted.
 */
export function storedMedia(media: CheckedMedia[]): RunMedia {
  const out: RunMedia = {};
  for (const m of media) {
    const record: MediaRecord = {
      id: crypto.randomUUID(),
      ...(m.url !== undefined ? { url: m.url } : {}),
      mime_type: m.mimeType,
      format: formatOf(m),
      ...(m.content !== undefined ? { content: m.content } : {}),
      ...(m.kind === "file" && m.filename ? { filename: m.filename } : {}),
      ...(m.kind === "file" && m.size !== undefined ? { size: m.size } : {}),
    };
    (out[RUN_INPUT_FIELDS[m.kind]] ??= []).push(record);
  }
  return out;
}

/** agno's normalize_mime_type: lowercased, parameters (`; charset=…`) dropped. */
function normalizeMimeType(value: string): string {
  return value.split(";", 1)[0]!.trim().toLowerCase();
}

/** agno's normalize_filename: quotes trimmed, characters illegal on common filesystems replaced. */
function normalizeFilename(value: string): string | undefined {
  const cleaned = value
    .trim()
    .replace(/^["']+|["']+$/g, "")
    .replace(/[<>:"/\\|?*\u0000-\u001f]/g, "_")
    .replace(/\s+/g, " ")
    .trim();
  return cleaned || undefined;
}

function kindOf(mimeType: string): MediaKind {
  const top = mimeType.split("/", 1)[0];
  return top === "image" || top === "audio" || top === "video" ? top : "file";
}

/** agno's extract_format: the filename's extension, else the mime subtype. */
function formatOf(m: CheckedMedia): string {
  const dot = m.filename?.lastIndexOf(".") ?? -1;
  return dot > 0 ? m.filename!.slice(dot + 1).toLowerCase() : m.mimeType.split("/")[1]!;
}

function checkUrl(url: unknown, fail: (problem: string) => never): string {
  if (typeof url !== "string") return fail("must be a string");
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return fail("is not a valid URL");
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:")
    return fail("must be http or https (give bytes, or a data: URL, as data)");
  return url;
}

/** The bytes, or canonical base64 (standard alphabet, padded) that is left encoded: rows keep it so. */
function readData(data: unknown, mimeType: string, fail: (problem: string) => never): Uint8Array | string {
  if (data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (typeof data !== "string") return fail("must be a Uint8Array, an ArrayBuffer, or a base64 or data: URL string");
  if (!/^data:/i.test(data)) return canonicalBase64(data, fail);
  const comma = data.indexOf(",");
  if (comma < 0) return fail("is not a valid data: URL");
  const params = data
    .slice(5, comma)
    .split(";")
    .map((p) => p.trim().toLowerCase());
  const isBase64 = params.at(-1) === "base64";
  const declared = params[0] && params[0] !== "base64" ? normalizeMimeType(params[0]) : "";
  if (declared && declared !== mimeType) return fail(`the data: URL says ${declared}, but mimeType is ${mimeType}`);
  if (!isBase64) return fail("a data: URL must be base64 (data:<type>;base64,…)");
  return canonicalBase64(data.slice(comma + 1), fail);
}

function canonicalBase64(value: string, fail: (problem: string) => never): string {
  let b64 = /\s/.test(value) ? value.replace(/\s+/g, "") : value;
  if (/[-_]/.test(b64)) b64 = b64.replace(/-/g, "+").replace(/_/g, "/");
  const unpadded = b64.replace(/={1,2}$/, "");
  const rest = unpadded.length % 4;
  const paddingOk = b64.length === unpadded.length || b64.length % 4 === 0;
  if (!/^[A-Za-z0-9+/]*$/.test(unpadded) || rest === 1 || !paddingOk) return fail("is not valid base64");
  return rest === 0 ? unpadded : unpadded + "=".repeat(4 - rest);
}

function base64Size(b64: string): number {
  const padding = b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0;
  return (b64.length / 4) * 3 - padding;
}

/** Media in a form JSON can carry (a queued run's payload): bytes become base64. */
export function portableMedia(media: MediaInput[] | undefined): MediaInput[] | undefined {
  return media?.map((m) => {
    if (m.data instanceof Uint8Array) return { ...m, data: bytesToBase64(m.data) };
    if (m.data instanceof ArrayBuffer) return { ...m, data: bytesToBase64(new Uint8Array(m.data)) };
    return m;
  });
}

function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const [value, unit] = bytes < MiB ? [bytes / 1024, "KiB"] : [bytes / MiB, "MiB"];
  return `${value.toFixed(1).replace(/\.0$/, "")} ${unit}`;
}
