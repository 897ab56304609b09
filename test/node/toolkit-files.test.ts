import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalStorage } from "../../src/offload/local-storage.js";
import type { ObjectStorage } from "../../src/offload/object-storage.js";
import { FileTools } from "../../src/toolkits/files/index.js";
import { callThroughAgent } from "../support/toolkit-kit.js";

let dir: string;
let storage: LocalStorage;
let calls = 0;
let counted: ObjectStorage;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "file-tools-"));
  storage = new LocalStorage({ directory: dir });
  counted = new Proxy(storage, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        calls++;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const as = (userId: string) => ({ userId, sessionId: `s-${userId}` });

describe("FileTools on object storage", () => {
  it("has agno's names; saves, lists, reads and deletes a user's files under their prefix", async () => {
    const files = new FileTools({ storage: counted });
    expect(files.id).toBe("file_tools");
    expect(files.tools.map((t) => t.name)).toEqual([
      "save_file",
      "read_file",
      "read_file_chunk",
      "list_files",
      "delete_file",
    ]);
    const saved = await callThroughAgent(
      [files],
      "save_file",
      { contents: "one\ntwo\nthree", file_name: "notes/a.md" },
      as("ana"),
    );
    expect(saved.execution.result).toBe("notes/a.md");
    await callThroughAgent([files], "save_file", { contents: "b", file_name: "b.txt" }, as("ana"));
    expect(JSON.parse((await callThroughAgent([files], "list_files", {}, as("ana"))).execution.result!)).toEqual([
      "b.txt",
      "notes/a.md",
    ]);
    expect(
      JSON.parse((await callThroughAgent([files], "list_files", { directory: "notes" }, as("ana"))).execution.result!),
    ).toEqual(["notes/a.md"]);
    expect(
      (await callThroughAgent([files], "read_file", { file_name: "notes/a.md" }, as("ana"))).execution.result,
    ).toBe("one\ntwo\nthree");
    const chunk = await callThroughAgent(
      [files],
      "read_file_chunk",
      { file_name: "notes/a.md", start_line: 1, end_line: 2 },
      as("ana"),
    );
    expect(chunk.execution.result).toBe("two\nthree");
    expect((await storage.head("files/users/u-ana/notes/a.md"))?.size).toBe(13);
    const kept = await callThroughAgent(
      [files],
      "save_file",
      { contents: "x", file_name: "b.txt", overwrite: false },
      as("ana"),
    );
    expect(kept.execution.result).toBe("File b.txt already exists");
    await callThroughAgent([files], "delete_file", { file_name: "b.txt" }, as("ana"));
    expect(JSON.parse((await callThroughAgent([files], "list_files", {}, as("ana"))).execution.result!)).toEqual([
      "notes/a.md",
    ]);
  });

  it("one user never reaches another's files; a session scope keys by session; a user id that is not key-safe is hashed", async () => {
    const files = new FileTools({ storage });
    const other = await callThroughAgent([files], "read_file", { file_name: "notes/a.md" }, as("bob"));
    expect(other.toolMessage).toBe("Error: there is no file notes/a.md");
    expect(JSON.parse((await callThroughAgent([files], "list_files", {}, as("bob"))).execution.result!)).toEqual([]);
    await callThroughAgent([files], "save_file", { contents: "hi", file_name: "x.txt" }, as("ana@example.com"));
    const keys = (await storage.list("files/users/")).map((o) => o.key);
    expect(keys.some((k) => /^files\/users\/h-[0-9a-f]{64}\/x\.txt$/.test(k))).toBe(true);
    const perSession = new FileTools({ storage, scope: "session" });
    await callThroughAgent([perSession], "save_file", { contents: "s", file_name: "s.txt" }, { sessionId: "sess1" });
    expect(await storage.head("files/sessions/u-sess1/s.txt")).not.toBeNull();
    const anonymous = await callThroughAgent([files], "list_files", {});
    expect(anonymous.toolMessage).toBe("Error: files are kept per user, and this run has no user_id");
  });

  it("refuses traversal, absolute and encoded paths before any storage call", async () => {
    const files = new FileTools({ storage: counted });
    const before = calls;
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ["read_file", { file_name: "../bob/notes/a.md" }, /`\.\.` is not allowed/],
      ["read_file", { file_name: "notes/../../u-bob/a.md" }, /`\.\.` is not allowed/],
      ["read_file", { file_name: "/etc/passwd" }, /absolute paths are not allowed/],
      ["read_file", { file_name: "C:/windows/win.ini" }, /absolute paths are not allowed/],
      ["read_file", { file_name: "%2e%2e/u-bob/a.md" }, /percent-encoded/],
      ["read_file", { file_name: "..\\bob\\a.md" }, /backslashes/],
      ["save_file", { contents: "x", file_name: "./a.md" }, /`\.` segments/],
      ["save_file", { contents: "x", file_name: "a//b.md" }, /empty or `\.` segments/],
      ["list_files", { directory: "../" }, /`\.\.` is not allowed/],
      ["read_file_chunk", { file_name: "a.md", start_line: 5, end_line: 1 }, /end_line must not be before/],
    ];
    for (const [name, args, message] of cases) {
      const { execution, toolMessage } = await callThroughAgent([files], name, args, as("ana"));
      expect(execution.tool_call_error, JSON.stringify(args)).toBe(true);
      expect(toolMessage, JSON.stringify(args)).toMatch(message);
    }
    expect(calls).toBe(before);
  });

  it("size limits: a large write is refused, a large read is cut and marked", async () => {
    const files = new FileTools({ storage, maxWriteBytes: 100, maxReadBytes: 10 });
    const big = await callThroughAgent(
      [files],
      "save_file",
      { contents: "x".repeat(101), file_name: "big.txt" },
      as("cy"),
    );
    expect(big.toolMessage).toBe("Error: the file would be 101 bytes; the limit is 100");
    await callThroughAgent([files], "save_file", { contents: "0123456789abcdef", file_name: "long.txt" }, as("cy"));
    const read = await callThroughAgent([files], "read_file", { file_name: "long.txt" }, as("cy"));
    expect(JSON.parse(read.execution.result!)).toEqual({ contents: "0123456789", truncated: true });
  });

  it("a storage failure is a clear tool error", async () => {
    const failing: ObjectStorage = {
      backend: "r2",
      bucket: "b",
      put: () => Promise.reject(new Error("R2 answered 503: service unavailable")),
      get: () => Promise.resolve(null),
      head: () => Promise.resolve(null),
      delete: () => Promise.resolve(),
    };
    const files = new FileTools({ storage: failing });
    const put = await callThroughAgent([files], "save_file", { contents: "x", file_name: "a.txt" }, as("ana"));
    expect(put.execution.tool_call_error).toBe(true);
    expect(put.toolMessage).toBe("Error: R2 answered 503: service unavailable");
    const list = await callThroughAgent([files], "list_files", {}, as("ana"));
    expect(list.toolMessage).toBe("Error: this storage cannot list files");
  });
});
