/**
 * What the storage benches (offload, media) each need per Postgres target: a fresh schema with
 * agno's tables, the scripted model server, and a temp folder for object storage. Both measure
 * sizes, not times, so the setup does not count.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Pool } from "@neondatabase/serverless";
import { startModelServer } from "../../test/support/model-server.js";
import { PostgresDb } from "../../src/db/postgres/postgres-db.js";
import { inFreshSchema } from "./util.js";

export interface StorageBenchTarget {
  target: { name: string; url: string };
  db: PostgresDb;
  /** raw SQL on the same database: the figures are read from the stored rows */
  pool: Pool;
  schema: string;
  modelServerUrl: string;
  storageDir: string;
}

/** Runs `measure` once per target in a schema of its own, dropping the schema and the folder afterwards. */
export async function eachStorageBenchTarget(
  name: string,
  dbTargets: Array<{ name: string; url: string }>,
  measure: (setup: StorageBenchTarget) => Promise<void>,
): Promise<void> {
  const models = await startModelServer();
  const storageDir = mkdtempSync(join(tmpdir(), `agno-bench-${name}-`));
  try {
    for (const target of dbTargets) {
      await inFreshSchema(
        target.url,
        async (pool, schema) => {
          const db = new PostgresDb({ pool, schema, id: "bench" });
          await db.init();
          await measure({ target, db, pool, schema, modelServerUrl: models.url, storageDir });
        },
        `bench_${name}`,
      );
    }
  } finally {
    rmSync(storageDir, { recursive: true, force: true });
    await models.stop();
  }
}
