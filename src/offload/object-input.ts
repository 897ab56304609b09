import { ValidationError } from "../errors.js";
import type { GetOptions, ObjectStorage, StoredObject } from "./object-storage.js";

/**
 * Input checks every ObjectStorage backend shares, so a key or range that one backend refuses
 * is refused by all of them, and nothing a caller passes can reach outside the bucket.
 */

const SEGMENT = /^[A-Za-z0-9._-]+$/;
/** S3's limit for a key, in bytes; our keys are ASCII, so characters. */
const MAX_KEY_LENGTH = 1024;
const MAX_CONTENT_TYPE_LENGTH = 255;

/**
 * A key is `/`-separated segments of `[A-Za-z0-9._-]`, none of them `.` or `..`: no absolute
 * paths, no empty segments, no NUL or backslash. That keeps keys safe as file paths and equal
 * as S3 and R2 keys (no characters that clients encode differently).
 */
export function checkKey(key: string): string {
  if (typeof key !== "string" || key.length === 0 || key.length > MAX_KEY_LENGTH) {
    throw new ValidationError(`an object key must be 1 to ${MAX_KEY_LENGTH} characters`, "key");
  }
  for (const segment of key.split("/")) {
    if (!SEGMENT.test(segment) || segment === "." || segment === "..") {
      throw new ValidationError(
        `object key ${JSON.stringify(key.slice(0, 100))} is not "/"-separated segments of [A-Za-z0-9._-] (no empty, "." or ".." segments)`,
        "key",
      );
    }
  }
  return key;
}

/** Content types end up in HTTP headers (S3, R2, the media route): no control characters. */
function checkContentType(contentType: string): string {
  if (
    contentType.length === 0 ||
    contentType.length > MAX_CONTENT_TYPE_LENGTH ||
    /[\u0000-\u001f\u007f]/.test(contentType)
  ) {
    throw new ValidationError(
      `a content type must be 1 to ${MAX_CONTENT_TYPE_LENGTH} printable characters`,
      "contentType",
    );
  }
  return contentType;
}

/**
 * The content type stored when the caller gives none, the same on every backend (S3 and R2
 * would otherwise each pick their own default, or none).
 */
export function contentTypeFor(body: Uint8Array | string, given: string | undefined): string {
  if (given !== undefined) return checkContentType(given);
  return typeof body === "string" ? "text/plain; charset=utf-8" : "application/octet-stream";
}

export function bytesOf(body: Uint8Array | string): Uint8Array {
  return typeof body === "string" ? new TextEncoder().encode(body) : body;
}

/** A checked byte range: `offset` and `length` (undefined: to the end), both whole numbers. */
export function checkRange(range: GetOptions["range"]): { offset: number; length: number | undefined } | undefined {
  if (range === undefined) return undefined;
  const { offset = 0, length } = range;
  if (!Number.isSafeInteger(offset) || offset < 0)
    throw new ValidationError("range offset must be a whole number >= 0", "offset");
  if (length !== undefined && (!Number.isSafeInteger(length) || length < 0)) {
    throw new ValidationError("range length must be a whole number >= 0", "length");
  }
  return { offset, length };
}

/** Where a checked range falls in an object of `size` bytes: `[start, end)`, clipped to the object. */
export function clipRange(range: ReturnType<typeof checkRange>, size: number): { start: number; end: number } {
  if (range === undefined) return { start: 0, end: size };
  const start = Math.min(range.offset, size);
  const end = range.length === undefined ? size : Math.min(size, start + range.length);
  return { start, end };
}

export function emptyBody(): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });
}

/** What a range that reads nothing answers: the object's info and no bytes (null when it is absent). */
export async function emptyRangeOf(storage: ObjectStorage, key: string): Promise<StoredObject | null> {
  const info = await storage.head(key);
  return info && { ...info, body: emptyBody() };
}

/**
 * The keys of a bulk delete in batches of at most `size` (what one S3 or R2 request takes),
 * duplicates dropped. Every key is checked first, so a bad key deletes nothing.
 */
export function deleteBatches(keys: string[], size: number): string[][] {
  const unique = [...new Set(keys.map(checkKey))];
  const batches: string[][] = [];
  for (let i = 0; i < unique.length; i += size) batches.push(unique.slice(i, i + size));
  return batches;
}

/** A list's limit: 1 to 1000 (S3's page), 1000 when not given. */
export function listLimit(limit: number | undefined): number {
  if (limit === undefined) return 1000;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 1000)
    throw new ValidationError("a list limit must be a whole number from 1 to 1000", "limit");
  return limit;
}

/** A list prefix: empty, or what a key may start with (segments as checkKey wants, the last one possibly partial or empty). */
export function checkPrefix(prefix: string): string {
  if (prefix !== "") checkKey(prefix.endsWith("/") ? `${prefix}x` : prefix);
  return prefix;
}
