import { describe, expect, it } from "vitest";
import type { ObjectStorage, StoredObject } from "../../src/offload/object-storage.js";

/**
 * The ObjectStorage contract, registered as vitest tests for one backend. Every backend (R2,
 * S3, local files) must pass it unchanged: ResultStore and MediaStorage rely on nothing else.
 * Keys get a fresh prefix per suite, so suites can share a bucket.
 */
export interface ContractOptions {
  /** the backend signs URLs: `presignedGetUrl` must exist and work (else it must be absent) */
  presignedUrls: boolean;
}

export function describeObjectStorageContract(name: string, make: () => ObjectStorage, options: ContractOptions): void {
  describe(`ObjectStorage contract: ${name}`, () => {
    const prefix = `contract-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    const key = (suffix: string) => `${prefix}/${suffix}`;
    const allBytes = Uint8Array.from({ length: 256 }, (_, i) => i);

    it("round-trips every byte value, with the default binary content type", async () => {
      const storage = make();
      const info = await storage.put(key("bytes"), allBytes);
      expect(info).toEqual({ key: key("bytes"), size: 256, contentType: "application/octet-stream" });
      const object = await storage.get(key("bytes"));
      expect(object && { key: object.key, size: object.size, contentType: object.contentType }).toEqual(info);
      expect(await bytesOf(object)).toEqual(allBytes);
    });

    it("round-trips UTF-8 text (CJK, emoji), sized in bytes, with the default text content type", async () => {
      const storage = make();
      const text = "héllo 世界 — 🎉👩‍👩‍👧 done";
      const info = await storage.put(key("text"), text);
      expect(info).toEqual({
        key: key("text"),
        size: new TextEncoder().encode(text).byteLength,
        contentType: "text/plain; charset=utf-8",
      });
      expect(new TextDecoder().decode(await bytesOf(await storage.get(key("text"))))).toBe(text);
    });

    it("keeps the content type given on put, for get and head", async () => {
      const storage = make();
      await storage.put(key("typed.jpg"), allBytes, { contentType: "image/jpeg" });
      const object = await storage.get(key("typed.jpg"));
      expect(object?.contentType).toBe("image/jpeg");
      expect(await bytesOf(object)).toEqual(allBytes);
      expect(await storage.head(key("typed.jpg"))).toEqual({
        key: key("typed.jpg"),
        size: 256,
        contentType: "image/jpeg",
      });
    });

    it("reads byte ranges: offset only, offset and length, past the end; size stays the object's", async () => {
      const storage = make();
      await storage.put(key("ranged"), allBytes);
      const slice = async (offset: number, length?: number) => {
        const object = await storage.get(key("ranged"), { range: { offset, length } });
        expect(object?.size).toBe(256);
        return Array.from(await bytesOf(object));
      };
      expect(await slice(200)).toEqual(range(200, 256));
      expect(await slice(0)).toEqual(range(0, 256));
      expect(await slice(10, 20)).toEqual(range(10, 30));
      expect(await slice(0, 2)).toEqual([0, 1]);
      expect(await slice(1, 1)).toEqual([1]);
      expect(await slice(250, 100)).toEqual(range(250, 256));
      expect(await slice(255)).toEqual([255]);
      expect(await slice(256)).toEqual([]);
      expect(await slice(1000, 5)).toEqual([]);
      expect(await slice(7, 0)).toEqual([]);
    });

    it("refuses a negative or fractional range", async () => {
      const storage = make();
      await expect(storage.get(key("ranged"), { range: { offset: -1 } })).rejects.toMatchObject({
        errorId: "validation_error",
        field: "offset",
      });
      await expect(storage.get(key("ranged"), { range: { offset: 0, length: 1.5 } })).rejects.toMatchObject({
        errorId: "validation_error",
        field: "length",
      });
    });

    it("answers null for an absent key, from get (with or without a range) and head", async () => {
      const storage = make();
      expect(await storage.get(key("absent"))).toBeNull();
      expect(await storage.get(key("absent"), { range: { offset: 3, length: 4 } })).toBeNull();
      expect(await storage.head(key("absent"))).toBeNull();
      expect(await storage.head(key("absent/deeper"))).toBeNull();
    });

    it("deletes present keys and ignores absent ones", async () => {
      const storage = make();
      await storage.put(key("del/one"), "1");
      await storage.put(key("del/two"), "2");
      await storage.delete([key("del/one"), key("del/never-written"), key("del/one")]);
      expect(await storage.head(key("del/one"))).toBeNull();
      expect(await storage.head(key("del/two"))).toMatchObject({ size: 1 });
      await storage.delete([]);
      await storage.delete([key("del/one")]);
    });

    it("overwrites: the newer bytes and content type replace the older", async () => {
      const storage = make();
      await storage.put(key("over"), allBytes, { contentType: "application/x-first" });
      await storage.put(key("over"), "second", { contentType: "text/x-second" });
      expect(await storage.head(key("over"))).toEqual({ key: key("over"), size: 6, contentType: "text/x-second" });
      expect(new TextDecoder().decode(await bytesOf(await storage.get(key("over"))))).toBe("second");
    });

    it("keeps keys with slashes apart, including a key that is a prefix of another", async () => {
      const storage = make();
      await storage.put(key("tree"), "root");
      await storage.put(key("tree/branch"), "branch");
      await storage.put(key("tree/branch/leaf.txt"), "leaf");
      await storage.delete([key("tree/branch")]);
      expect(await storage.head(key("tree/branch"))).toBeNull();
      expect(await textOf(storage.get(key("tree")))).toBe("root");
      expect(await textOf(storage.get(key("tree/branch/leaf.txt")))).toBe("leaf");
    });

    it("lists the keys under a prefix in key order with their sizes, up to a limit", async () => {
      const storage = make();
      await storage.put(key("ls/b2"), "22");
      await storage.put(key("ls/a"), "a");
      await storage.put(key("ls/b/c"), "ccc");
      await storage.put(key("lsx"), "x");
      const listed = await storage.list!(key("ls/"));
      expect(listed.map((o) => [o.key, o.size])).toEqual([
        [key("ls/a"), 1],
        [key("ls/b/c"), 3],
        [key("ls/b2"), 2],
      ]);
      expect((await storage.list!(key("ls/b"))).map((o) => o.key)).toEqual([key("ls/b/c"), key("ls/b2")]);
      expect((await storage.list!(key("ls/"), { limit: 2 })).map((o) => o.key)).toEqual([key("ls/a"), key("ls/b/c")]);
      expect(await storage.list!(key("nothing/"))).toEqual([]);
      await expect(storage.list!("../")).rejects.toThrow(/not "\/"-separated segments/);
      await expect(storage.list!(key("ls/"), { limit: 0 })).rejects.toThrow(/from 1 to 1000/);
    });

    it("refuses keys that could leave the bucket or differ between backends, before touching anything", async () => {
      const storage = make();
      await storage.put(key("kept"), "kept");
      for (const bad of [
        "",
        "/abs",
        "../up",
        `${prefix}/../x`,
        `${prefix}/./x`,
        `${prefix}//x`,
        `${prefix}/`,
        "nul\u0000byte",
        "back\\slash",
        "é",
        "a b",
        "x".repeat(1025),
      ]) {
        await expect(storage.put(bad, "x"), JSON.stringify(bad)).rejects.toMatchObject({
          errorId: "validation_error",
          field: "key",
        });
        await expect(storage.get(bad)).rejects.toMatchObject({ field: "key" });
        await expect(storage.head(bad)).rejects.toMatchObject({ field: "key" });
        await expect(storage.delete([key("kept"), bad])).rejects.toMatchObject({ field: "key" });
      }
      expect(await storage.head(key("kept"))).toMatchObject({ size: 4 });
      await expect(
        storage.put(key("typed"), "x", { contentType: "text/plain\r\nX-Injected: 1" }),
      ).rejects.toMatchObject({ field: "contentType" });
      expect(await storage.head(key("typed"))).toBeNull();
    });

    it("stores and reads a 5 MB object whole and in a range", async () => {
      const storage = make();
      const big = Uint8Array.from({ length: 5 * 1024 * 1024 }, (_, i) => (i * 31 + (i >> 8)) & 0xff);
      expect(await storage.put(key("big.bin"), big)).toMatchObject({ size: big.byteLength });
      expect(firstDifference(await bytesOf(await storage.get(key("big.bin"))), big)).toBe(-1);
      const middle = await bytesOf(
        await storage.get(key("big.bin"), { range: { offset: 3_000_001, length: 100_000 } }),
      );
      expect(firstDifference(middle, big.subarray(3_000_001, 3_100_001))).toBe(-1);
    });

    it("deletes 1,500 keys in one call (more than one S3 or R2 request takes)", async () => {
      const storage = make();
      const keys = Array.from({ length: 1500 }, (_, i) => key(`bulk/${String(i).padStart(4, "0")}`));
      await inBatches(keys, 100, (k) => storage.put(k, k));
      expect(await storage.head(keys[1499]!)).toMatchObject({ size: keys[1499]!.length });
      await storage.delete(keys);
      const left = await inBatches(keys, 100, (k) => storage.head(k));
      expect(left.filter((info) => info !== null)).toEqual([]);
    });

    if (options.presignedUrls) {
      it("presigns a GET URL that plain fetch reads, that names only its key, and that expires", async () => {
        const storage = make();
        await storage.put(key("signed.txt"), "signed bytes", { contentType: "text/plain" });
        const url = await storage.presignedGetUrl!(key("signed.txt"), 2);
        const response = await fetch(url);
        expect(response.status).toBe(200);
        expect(await response.text()).toBe("signed bytes");
        // The signature covers the key: the same query on another key is refused.
        await storage.put(key("other.txt"), "other");
        const tampered = url.replace("signed.txt", "other.txt");
        const refused = await fetch(tampered);
        expect(refused.status).toBe(403);
        await refused.body?.cancel();
        await new Promise((resolve) => setTimeout(resolve, 3200));
        const expired = await fetch(url);
        expect(expired.status).toBe(403);
        await expired.body?.cancel();
        await expect(storage.presignedGetUrl!(key("signed.txt"), 0)).rejects.toMatchObject({
          field: "expiresInSeconds",
        });
      });
    } else {
      it("has no presignedGetUrl (the backend cannot sign URLs)", () => {
        expect(make().presignedGetUrl).toBeUndefined();
      });
    }
  });
}

async function bytesOf(object: StoredObject | null): Promise<Uint8Array> {
  if (!object) throw new Error("expected an object, got null");
  return new Uint8Array(await new Response(object.body).arrayBuffer());
}

async function textOf(object: Promise<StoredObject | null>): Promise<string> {
  return new TextDecoder().decode(await bytesOf(await object));
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}

/** -1 when equal; a 5 MB deep-equal diff would be unreadable. */
function firstDifference(a: Uint8Array, b: Uint8Array): number {
  if (a.byteLength !== b.byteLength) return Math.min(a.byteLength, b.byteLength);
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return i;
  return -1;
}

async function inBatches<T, R>(items: T[], size: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += size) results.push(...(await Promise.all(items.slice(i, i + size).map(work))));
  return results;
}
