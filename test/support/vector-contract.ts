import { describe, expect, it } from "vitest";
import { normalizeFilters } from "../../src/knowledge/filters.js";
import type { VectorDb, VectorRecord } from "../../src/knowledge/vector-db.js";
import { hashedVector } from "./embedding-server.js";

/** Vector length in the contract: small, since the vectors are hashed words. */
export const CONTRACT_DIMENSIONS = 32;

export interface VectorTarget {
  /** a fresh, empty store (its own table) */
  open(): Promise<VectorDb>;
  close?(): Promise<void>;
}

export function record(id: string, content: string, extra: Partial<VectorRecord> = {}): VectorRecord {
  return {
    id,
    content,
    name: extra.name ?? "doc",
    meta_data: extra.meta_data ?? {},
    embedding: hashedVector(content, CONTRACT_DIMENSIONS),
    content_id: extra.content_id ?? "c1",
    content_hash: extra.content_hash ?? "h1",
    user_id: extra.user_id ?? null,
    ...(extra.usage ? { usage: extra.usage } : {}),
  };
}

const q = (text: string) => ({ query: text, embedding: hashedVector(text, CONTRACT_DIMENSIONS) });
const ids = (docs: { id?: string }[]) => docs.map((d) => d.id);

const CORPUS: VectorRecord[] = [
  record("refund", "Refunds are paid back within five business days", {
    meta_data: { topic: "billing", year: 2024, tags: ["money", "policy"], lang: "en" },
    content_id: "c-billing",
  }),
  record("invoice", "Invoices are sent monthly by email", {
    meta_data: { topic: "billing", year: 2022, tags: ["money"], lang: "en" },
    content_id: "c-billing",
  }),
  record("cat", "The office cat sleeps on warm keyboards", {
    meta_data: { topic: "office", year: 2023, tags: ["pets"], lang: "en-GB" },
    content_id: "c-office",
  }),
  record("alice", "Alice private note about refunds and her salary", {
    meta_data: { topic: "private", year: 2024 },
    user_id: "alice",
    content_id: "c-alice",
    content_hash: "h-alice",
  }),
  record("bob", "Bob private note about refunds and his bonus", {
    meta_data: { topic: "private", year: 2024 },
    user_id: "bob",
    content_id: "c-bob",
    content_hash: "h-bob",
  }),
];

/**
 * The VectorDb contract: every adapter (in memory, PgVector on PGlite+pgvector, PgVector on a
 * PostgreSQL server with pgvector) passes the same cases.
 */
export function vectorContract(name: string, target: () => VectorTarget) {
  describe(`VectorDb contract on ${name}`, () => {
    const open = async () => {
      const db = await target().open();
      await db.create();
      await db.insert(CORPUS);
      return db;
    };

    it("vector search ranks the nearest first, with similarity_score, content_id, name and meta_data", async () => {
      const db = await open();
      const docs = await db.search({ ...q("how many days until refunds are paid back"), limit: 2 });
      expect(docs[0]).toMatchObject({
        id: "refund",
        name: "doc",
        content: "Refunds are paid back within five business days",
        content_id: "c-billing",
        meta_data: { topic: "billing", year: 2024, tags: ["money", "policy"] },
      });
      expect(docs[0]!.meta_data.similarity_score).toBeGreaterThan(0.5);
      expect(docs).toHaveLength(2);
      expect(await db.exists()).toBe(true);
    });

    it("insert keeps an existing id; upsert replaces it", async () => {
      const db = await open();
      await db.insert([record("cat", "Dogs bark at the mail carrier", { meta_data: { topic: "x" } })]);
      expect((await db.search({ ...q("office cat keyboards"), limit: 1 }))[0]!.content).toMatch(/cat sleeps/);
      await db.upsert([record("cat", "Dogs bark at the mail carrier", { meta_data: { topic: "x" } })]);
      const [top] = await db.search({ ...q("dogs bark mail carrier"), limit: 1 });
      expect(top).toMatchObject({ id: "cat", content: "Dogs bark at the mail carrier", meta_data: { topic: "x" } });
    });

    it("a user sees their rows and the shared ones; null only shared; undefined every row", async () => {
      const db = await open();
      const search = async (userId: string | null | undefined) =>
        ids(await db.search({ ...q("private note about refunds"), limit: 10, userId })).sort();
      expect(await search("alice")).toEqual(["alice", "cat", "invoice", "refund"]);
      expect(await search("bob")).toEqual(["bob", "cat", "invoice", "refund"]);
      expect(await search("carol")).toEqual(["cat", "invoice", "refund"]);
      expect(await search(null)).toEqual(["cat", "invoice", "refund"]);
      expect(await search(undefined)).toEqual(["alice", "bob", "cat", "invoice", "refund"]);
      expect(
        ids(await db.search({ query: "private refunds", limit: 10, userId: "alice", searchType: "keyword" })),
      ).not.toContain("bob");
    });

    it("filters: dict equality and list containment, IN, comparisons, AND/OR/NOT, CONTAINS, STARTSWITH", async () => {
      const db = await open();
      const run = async (filters: unknown) =>
        ids(await db.search({ ...q("refunds invoices cat"), limit: 10, filters: normalizeFilters(filters) })).sort();
      expect(await run({ topic: "billing" })).toEqual(["invoice", "refund"]);
      expect(await run({ tags: "money" })).toEqual(["invoice", "refund"]);
      expect(await run({ tags: ["money", "policy"] })).toEqual(["refund"]);
      expect(await run({ topic: "billing", year: 2022 })).toEqual(["invoice"]);
      expect(await run({ op: "IN", key: "topic", values: ["office", "private"] })).toEqual(["alice", "bob", "cat"]);
      expect(await run({ op: "GT", key: "year", value: 2023 })).toEqual(["alice", "bob", "refund"]);
      expect(await run({ op: "LTE", key: "year", value: 2023 })).toEqual(["cat", "invoice"]);
      expect(
        await run({
          op: "OR",
          conditions: [
            { op: "EQ", key: "topic", value: "office" },
            {
              op: "AND",
              conditions: [
                { op: "EQ", key: "topic", value: "billing" },
                { op: "LT", key: "year", value: 2023 },
              ],
            },
          ],
        }),
      ).toEqual(["cat", "invoice"]);
      expect(await run({ op: "NOT", condition: { op: "EQ", key: "topic", value: "private" } })).toEqual([
        "cat",
        "invoice",
        "refund",
      ]);
      expect(await run({ op: "NEQ", key: "topic", value: "billing" })).toEqual(["alice", "bob", "cat"]);
      expect(await run({ op: "STARTSWITH", key: "lang", value: "en-" })).toEqual(["cat"]);
      expect(await run({ op: "CONTAINS", key: "lang", value: "n" })).toEqual(["cat", "invoice", "refund"]);
      // a comparison on a key holding text matches nothing, never an error
      expect(await run({ op: "GT", key: "topic", value: 1 })).toEqual([]);
      expect(await run({ missing_key: "x" })).toEqual([]);
    });

    it("keyword search finds chunks by their words; hybrid fuses both rankings", async () => {
      const db = await open();
      const kw = await db.search({ query: "keyboards", limit: 5, searchType: "keyword" });
      expect(ids(kw)).toEqual(["cat"]);
      expect(await db.search({ query: "zebra", limit: 5, searchType: "keyword" })).toEqual([]);
      expect(await db.search({ query: "  !!! ", limit: 5, searchType: "keyword" })).toEqual([]);
      const hybrid = await db.search({ ...q("invoices monthly email"), limit: 3, searchType: "hybrid" });
      expect(hybrid[0]!.id).toBe("invoice");
      expect(hybrid.length).toBeLessThanOrEqual(3);
    });

    it("content hashes, deletes by content id and by metadata, metadata updates, delete all, drop", async () => {
      const db = await open();
      expect(await db.contentHashExists("h-alice")).toBe(true);
      expect(await db.contentHashExists("h-alice", "alice")).toBe(true);
      expect(await db.contentHashExists("h-alice", "bob")).toBe(false);
      expect(await db.contentHashExists("h1", null)).toBe(true);
      expect(await db.contentHashExists("nope")).toBe(false);
      expect(await db.deleteByContentId("c-billing")).toBe(2);
      expect(await db.deleteByContentId("c-billing")).toBe(0);
      expect(await db.deleteByMetadata(normalizeFilters({ topic: "private" })!)).toBe(2);
      expect(ids(await db.search({ ...q("anything"), limit: 10 }))).toEqual(["cat"]);
      expect(await db.updateMetadata("c-office", { topic: "moved", extra: 1 })).toBe(1);
      expect(ids(await db.search({ ...q("cat"), limit: 10, filters: normalizeFilters({ topic: "moved" }) }))).toEqual([
        "cat",
      ]);
      expect((await db.search({ ...q("cat"), limit: 1 }))[0]!.meta_data).toMatchObject({
        topic: "moved",
        extra: 1,
        year: 2023,
      });
      // a metadata update first drops what the content's previous metadata had put there
      expect(await db.updateMetadata("c-office", { topic: "again" }, { removeKeys: ["extra", "lang"] })).toBe(1);
      const meta = (await db.search({ ...q("cat"), limit: 1 }))[0]!.meta_data;
      expect(meta).toMatchObject({ topic: "again", year: 2023 });
      expect(meta).not.toHaveProperty("extra");
      expect(meta).not.toHaveProperty("lang");
      await db.deleteAll();
      expect(await db.search({ ...q("cat"), limit: 10 })).toEqual([]);
      expect(await db.exists()).toBe(true);
      await db.drop();
      expect(await db.exists()).toBe(false);
    });
  });
}
