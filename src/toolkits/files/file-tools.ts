import { z } from "zod";
import { tool, Toolkit, type ToolContext } from "../../tools/tool.js";
import type { ObjectStorage } from "../../offload/object-storage.js";
import { readCapped } from "../../read-capped.js";
import { sha256Hex } from "../../sha256.js";
import { filePath, folderPath } from "./file-path.js";

const SAFE_ID = /^[A-Za-z0-9_-]{1,128}$/;

export interface FileToolsOptions {
  /** the bucket files live in (R2Storage, S3Storage, LocalStorage); listing needs its `list` */
  storage: ObjectStorage;
  /** whose files: the run's user (default) or the run's session */
  scope?: "user" | "session";
  /** every key starts with this (default `files`) */
  keyPrefix?: string;
  /** largest file written, in bytes (default 1 MiB) */
  maxWriteBytes?: number;
  /** largest file read, in bytes (default 1 MiB); a longer file is read up to it and marked truncated */
  maxReadBytes?: number;
  /** the most files list_files returns (default 200) */
  maxList?: number;
  include?: string[];
  exclude?: string[];
}

/** An id as a key segment: as written when it is key-safe, else its SHA-256 (the two kinds cannot collide). */
async function segmentOf(id: string): Promise<string> {
  return SAFE_ID.test(id) ? `u-${id}` : `h-${await sha256Hex(id)}`;
}

/**
 * agno's FileTools on object storage instead of a local disk (Workers have none): `save_file`,
 * `read_file`, `read_file_chunk`, `list_files` and `delete_file` under a folder of the run's user
 * or session, so one user never reaches another's files. Paths are checked before any I/O:
 * relative, no `..`, no absolute, backslash or percent-encoded forms.
 */
export class FileTools extends Toolkit {
  constructor(opts: FileToolsOptions) {
    const scope = opts.scope ?? "user";
    const base = (opts.keyPrefix ?? "files").replace(/\/+$/, "");
    const maxWrite = opts.maxWriteBytes ?? 1024 * 1024;
    const maxRead = opts.maxReadBytes ?? 1024 * 1024;
    const maxList = opts.maxList ?? 200;
    const storage = opts.storage;

    const folderOf = async (ctx: ToolContext): Promise<string> => {
      if (scope === "user") {
        if (!ctx.userId) throw new Error("files are kept per user, and this run has no user_id");
        return `${base}/users/${await segmentOf(ctx.userId)}/`;
      }
      return `${base}/sessions/${await segmentOf(ctx.sessionId)}/`;
    };

    const readText = async (key: string, name: string) => {
      const object = await storage.get(key);
      if (!object) throw new Error(`there is no file ${name}`);
      const bytes = await readCapped(new Response(object.body), maxRead);
      if (bytes) return { text: new TextDecoder().decode(bytes), truncated: false };
      const head = await storage.get(key, { range: { offset: 0, length: maxRead } });
      const part = await new Response(head!.body).arrayBuffer();
      return { text: new TextDecoder().decode(part), truncated: true };
    };

    super({
      id: "file_tools",
      name: "file_tools",
      include: opts.include,
      exclude: opts.exclude,
      tools: [
        tool({
          name: "save_file",
          description: "Saves the contents to a file and returns the file name if successful.",
          parameters: z.object({
            contents: z.string().describe("The contents to save."),
            file_name: filePath.describe("The name of the file to save to, e.g. notes/today.md"),
            overwrite: z.boolean().default(true).describe("Overwrite the file if it already exists."),
          }),
          execute: async ({ contents, file_name, overwrite }, ctx) => {
            const bytes = new TextEncoder().encode(contents);
            if (bytes.byteLength > maxWrite)
              throw new Error(`the file would be ${bytes.byteLength} bytes; the limit is ${maxWrite}`);
            const key = (await folderOf(ctx)) + file_name;
            if (!overwrite && (await storage.head(key))) return `File ${file_name} already exists`;
            await storage.put(key, bytes, { contentType: "text/plain; charset=utf-8" });
            return file_name;
          },
        }),
        tool({
          name: "read_file",
          description: "Reads the contents of the file file_name and returns the contents if successful.",
          parameters: z.object({ file_name: filePath.describe("The name of the file to read.") }),
          execute: async ({ file_name }, ctx) => {
            const { text, truncated } = await readText((await folderOf(ctx)) + file_name, file_name);
            return truncated ? { contents: text, truncated: true } : text;
          },
        }),
        tool({
          name: "read_file_chunk",
          description: "Reads lines start_line to end_line (0-based, inclusive) of a file.",
          parameters: z
            .object({
              file_name: filePath,
              start_line: z.number().int().min(0),
              end_line: z.number().int().min(0),
            })
            .refine((a) => a.end_line >= a.start_line, { message: "end_line must not be before start_line" }),
          execute: async ({ file_name, start_line, end_line }, ctx) => {
            const { text } = await readText((await folderOf(ctx)) + file_name, file_name);
            return text
              .split("\n")
              .slice(start_line, end_line + 1)
              .join("\n");
          },
        }),
        tool({
          name: "list_files",
          description: "Returns a list of files in the directory (default: all your files).",
          parameters: z.object({ directory: folderPath.describe("The directory to list, relative to your files.") }),
          execute: async ({ directory }, ctx) => {
            if (!storage.list) throw new Error("this storage cannot list files");
            const folder = await folderOf(ctx);
            const sub = directory.replace(/\/+$/, "");
            const prefix = sub === "." || sub === "" ? folder : `${folder}${sub}/`;
            const listed = await storage.list(prefix, { limit: maxList });
            return listed.map((o) => o.key.slice(folder.length));
          },
        }),
        tool({
          name: "delete_file",
          description: "Deletes a file.",
          parameters: z.object({ file_name: filePath.describe("The name of the file to delete.") }),
          execute: async ({ file_name }, ctx) => {
            const key = (await folderOf(ctx)) + file_name;
            if (!(await storage.head(key))) throw new Error(`there is no file ${file_name}`);
            await storage.delete([key]);
            return `Deleted ${file_name}`;
          },
        }),
      ],
    });
  }
}
