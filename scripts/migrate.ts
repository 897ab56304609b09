/**
 * `npm run migrate`: upgrades the database at DATABASE_URL from agno 2.x's layout to 3.0's
 * (the same as `POST /databases/all/migrate`), printing progress as it goes. Safe to stop and
 * run again. `--cleanup-legacy --force` then drops the legacy runs column.
 *
 *   DATABASE_URL=postgres://… npm run migrate [-- --schema ai --batch-size 200]
 */
import { Pool } from "@neondatabase/serverless";
import { parseArgs } from "node:util";
import ws from "ws";
import { MigrationManager } from "../src/db/migration-manager.js";
import { useLocalWsProxy } from "../src/db/postgres/local-proxy.js";
import { PostgresDb } from "../src/db/postgres/postgres-db.js";
import { startWsProxy, type WsProxy } from "../src/cli/local/ws-proxy.js";

const { values } = parseArgs({
  options: {
    schema: { type: "string" },
    "batch-size": { type: "string" },
    "cleanup-legacy": { type: "boolean", default: false },
    force: { type: "boolean", default: false },
  },
});

async function main() {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("set DATABASE_URL to the database to migrate");
  const target = new URL(url);
  // Neon answers WebSockets itself; any other Postgres is reached through the local proxy.
  let proxy: WsProxy | undefined;
  if (target.hostname.endsWith(".neon.tech")) {
    (await import("@neondatabase/serverless")).neonConfig.webSocketConstructor = ws;
  } else {
    proxy = await startWsProxy({ allow: [`${target.hostname}:${target.port || "5432"}`] });
    useLocalWsProxy(proxy.address, ws);
  }
  const pool = new Pool({ connectionString: url });
  try {
    const db = new PostgresDb({ pool, schema: values.schema ?? process.env.AGNO_DB_SCHEMA });
    const result = await new MigrationManager(db).up({
      batchSize: values["batch-size"] ? Number(values["batch-size"]) : undefined,
      onProgress: (p) =>
        console.log(`progress sessions=${p.sessionsDone}/${p.sessionsTotal} runs_copied=${p.runsCopied}`),
    });
    console.log(`migrated ${JSON.stringify(result)}`);
    if (values["cleanup-legacy"]) {
      await db.cleanupLegacyRunsColumn({ force: values.force });
      console.log("legacy runs column dropped");
    }
  } finally {
    await pool.end();
    await proxy?.stop();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? `${err.name}: ${err.message}` : err);
  process.exit(1);
});
