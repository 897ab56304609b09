import { randomBytes } from "node:crypto";
import { mkdir, open, readdir, rename, rmdir, unlink, writeFile, type FileHandle } from "node:fs/promises";
import { basename, dirname, join, resolve, sep } from "node:path";
import type {
  GetOptions,
  ListOptions,
  ObjectStorage,
  PutOptions,
  StoredObject,
  StoredObjectInfo,
} from "./object-storage.js";
import {
  bytesOf,
  checkKey,
  checkPrefix,
  checkRange,
  clipRange,
  contentTypeFor,
  emptyBody,
  listLimit,
} from "./object-input.js";

/**
 * Node only (it imports `node:fs`): never import this from the Worker's modules.
 *
 * Layout: key `a/b/c` is the file `<directory>/a/b/c~`. The `~` suffix (a character keys may
 * not hold) keeps object files and the folders of longer keys apart, so `a` and `a/b` can both
 * exist, as they can in S3 and R2. Each file is a one-line JSON header (the content type) and
 * then the object's bytes: one file, so one rename replaces bytes and content type together.
 */

/** The first line of every object file; ASCII, so its length is its size in bytes. */
const HEADER_MAGIC = "agno-object 1\n";
/** The header is magic + JSON of a content type of at most 255 checked characters: always below this. */
const HEADER_MAX_BYTES = 1024;
const CHUNK_BYTES = 64 * 1024;

export interface LocalStorageOptions {
  /** created on first write */
  directory: string;
}

/**
 * Objects as files under a directory, for Node scripts, tests and local development.
 * Writes are atomic (a temp file renamed over the target): a reader sees the old object or the
 * new one, never a part.
 *
 * @example
 * const storage = new LocalStorage({ directory: "./.data/objects" });
 * await storage.put("results/r1", "hello", { contentType: "text/plain" });
 */
export class LocalStorage implements ObjectStorage {
  readonly backend = "local";
  readonly bucket: string;
  private readonly root: string;

  constructor(options: LocalStorageOptions) {
    this.root = resolve(options.directory);
    this.bucket = basename(this.root);
  }

  async put(key: string, body: Uint8Array | string, opts: PutOptions = {}): Promise<StoredObjectInfo> {
    const file = this.fileOf(key);
    const contentType = contentTypeFor(body, opts.contentType);
    const bytes = bytesOf(body);
    const header = new TextEncoder().encode(`${HEADER_MAGIC}${JSON.stringify({ contentType })}\n`);
    const temp = `${file}${randomBytes(8).toString("hex")}.tmp`;
    // A concurrent delete may prune the (then empty) folder between mkdir and the write: retry.
    for (let attempt = 0; ; attempt++) {
      await mkdir(dirname(file), { recursive: true });
      try {
        await writeFile(temp, [header, bytes], { flag: "wx" });
        break;
      } catch (error) {
        if (codeOf(error) !== "ENOENT" || attempt >= 3) throw error;
      }
    }
    try {
      await rename(temp, file);
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      throw error;
    }
    return { key, size: bytes.byteLength, contentType };
  }

  async get(key: string, opts: GetOptions = {}): Promise<StoredObject | null> {
    const range = checkRange(opts.range);
    const handle = await openIfExists(this.fileOf(key));
    if (!handle) return null;
    try {
      const { contentType, dataStart, size } = await readHeader(handle);
      const { start, end } = clipRange(range, size);
      if (start === end) {
        await handle.close();
        return { key, size, contentType, body: emptyBody() };
      }
      return { key, size, contentType, body: streamFile(handle, dataStart + start, dataStart + end) };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async head(key: string): Promise<StoredObjectInfo | null> {
    const handle = await openIfExists(this.fileOf(key));
    if (!handle) return null;
    try {
      const { contentType, size } = await readHeader(handle);
      return { key, size, contentType };
    } finally {
      await handle.close();
    }
  }

  /** Walks the folder the prefix points into: fine for local development, not for millions of keys. */
  async list(prefix: string, opts: ListOptions = {}): Promise<StoredObjectInfo[]> {
    const limit = listLimit(opts.limit);
    const cut = checkPrefix(prefix).lastIndexOf("/") + 1;
    const keys: string[] = [];
    const walk = async (folder: string, keyPrefix: string): Promise<void> => {
      let entries;
      try {
        entries = await readdir(folder, { withFileTypes: true });
      } catch (error) {
        if (codeOf(error) === "ENOENT" || codeOf(error) === "ENOTDIR") return;
        throw error;
      }
      for (const e of entries) {
        if (e.isDirectory()) await walk(join(folder, e.name), `${keyPrefix}${e.name}/`);
        else if (e.name.endsWith("~")) keys.push(`${keyPrefix}${e.name.slice(0, -1)}`);
      }
    };
    await walk(cut > 0 ? join(this.root, prefix.slice(0, cut)) : this.root, prefix.slice(0, cut));
    const chosen = keys
      .filter((k) => k.startsWith(prefix))
      .sort()
      .slice(0, limit);
    const out: StoredObjectInfo[] = [];
    for (const key of chosen) {
      const info = await this.head(key);
      if (info) out.push(info);
    }
    return out;
  }

  async delete(keys: string[]): Promise<void> {
    const files = keys.map((key) => this.fileOf(key));
    for (const file of files) {
      try {
        await unlink(file);
      } catch (error) {
        if (codeOf(error) !== "ENOENT") throw error;
        continue;
      }
      await this.pruneEmptyFolders(dirname(file));
    }
  }

  /** Removes the folders a delete left empty, up to the root, so expired keys leave no trail. */
  private async pruneEmptyFolders(folder: string): Promise<void> {
    while (folder.startsWith(this.root + sep)) {
      try {
        await rmdir(folder);
      } catch {
        return; // not empty (or already gone): the folders above are not empty either
      }
      folder = dirname(folder);
    }
  }

  private fileOf(key: string): string {
    return `${join(this.root, checkKey(key))}~`;
  }
}

async function openIfExists(file: string): Promise<FileHandle | null> {
  try {
    return await open(file, "r");
  } catch (error) {
    if (codeOf(error) === "ENOENT" || codeOf(error) === "ENOTDIR") return null;
    throw error;
  }
}

async function readHeader(
  handle: FileHandle,
): Promise<{ contentType: string | null; dataStart: number; size: number }> {
  const buffer = new Uint8Array(HEADER_MAX_BYTES);
  const { bytesRead } = await handle.read(buffer, 0, HEADER_MAX_BYTES, 0);
  const headerEnd = buffer.indexOf(0x0a, HEADER_MAGIC.length);
  const decoder = new TextDecoder();
  if (
    decoder.decode(buffer.subarray(0, HEADER_MAGIC.length)) !== HEADER_MAGIC ||
    headerEnd < 0 ||
    headerEnd >= bytesRead
  ) {
    throw new Error("not an object file written by LocalStorage (bad header)");
  }
  const { contentType } = JSON.parse(decoder.decode(buffer.subarray(HEADER_MAGIC.length, headerEnd))) as {
    contentType?: string;
  };
  const dataStart = headerEnd + 1;
  const { size: fileSize } = await handle.stat();
  return { contentType: contentType ?? null, dataStart, size: fileSize - dataStart };
}

/** Streams `[start, end)` of the open file, closing it at the end or when the reader cancels. */
function streamFile(handle: FileHandle, start: number, end: number): ReadableStream<Uint8Array> {
  let position = start;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const chunk = new Uint8Array(Math.min(CHUNK_BYTES, end - position));
        const { bytesRead } = await handle.read(chunk, 0, chunk.byteLength, position);
        position += bytesRead;
        if (bytesRead > 0) controller.enqueue(chunk.subarray(0, bytesRead));
        if (bytesRead === 0 || position >= end) {
          await handle.close();
          controller.close();
        }
      } catch (error) {
        await handle.close().catch(() => undefined);
        controller.error(error);
      }
    },
    async cancel() {
      await handle.close();
    },
  });
}

function codeOf(error: unknown): string | undefined {
  return (error as { code?: string } | null)?.code;
}
