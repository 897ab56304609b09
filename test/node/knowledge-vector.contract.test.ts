import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PGlite } from "@electric-sql/pglite";
import { VectorExtensionUnavailableError } from "../../src/knowledge/errors.js";
import { PgVector } from "../../src/knowledge/vectordb/pgvector/pg-vector.js";
import type { SqlExecutor } from "../../src/knowledge/vectordb/pgvector/sql-executor.js";
import { dbTargets, openTestDb, type TestDb } from "../support/db-targets.js";
import { vectorContract } from "../support/vector-contract.js";
import {
  memoryVectorTarget,
  openPgliteWithVector,
  pgVectorTarget,
  vectorAvailable,
} from "../support/vector-targets.js";

vectorContract("in-memory", memoryVectorTarget);

let pglite: { pg: PGlite; executor: SqlExecutor } | undefined;
beforeAll(async () => {
  pglite = await openPgliteWithVector();
}, 60_000);
afterAll(async () => {
  await pglite?.pg.close();
});
vectorContract("PGlite + pgvector", () => pgVectorTarget(() => pglite!.executor));

// The Postgres servers of the storage suites (the wire PGlite has no pgvector loaded; a real
// server may or may not offer it): the contract where `vector` is available, else the typed
// error the knowledge routes turn into a 503, with a line saying what did not run and why.
for (const target of dbTargets()) {
  const t: TestDb = openTestDb(target);
  await t.db.init();
  const available = await vectorAvailable(t.db.sqlExecutor());
  afterAll(() => t.close());
  if (available) {
    vectorContract(`${target.name} + pgvector`, () => pgVectorTarget(() => t.db.sqlExecutor()));
    continue;
  }
  console.log(
    `[knowledge tests] ${target.name} (${target.url.replace(/\/\/[^@]*@/, "//")}) has no "vector" extension: ` +
      "the VectorDb contract did NOT run there (6 cases); only the missing-extension error is tested",
  );
  describe(`PgVector on ${target.name} without pgvector`, () => {
    it("every call is VectorExtensionUnavailableError (503) naming the extension; the rest of the database works", async () => {
      const store = new PgVector({ tableName: "kb_vectors", dimensions: 8 }).withDb(t.db);
      const err = await store
        .search({ query: "x", embedding: new Array(8).fill(0.1), limit: 1 })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(VectorExtensionUnavailableError);
      expect(err).toMatchObject({ status: 503, errorId: "vector_extension_unavailable" });
      expect((err as Error).message).toMatch(/extension "vector" \(pgvector\)/);
      await expect(store.create()).rejects.toBeInstanceOf(VectorExtensionUnavailableError);
      await expect(store.deleteByContentId("c")).rejects.toBeInstanceOf(VectorExtensionUnavailableError);
      await expect(t.db.getSessions()).resolves.toMatchObject({ data: [] });
    });
  });
}
