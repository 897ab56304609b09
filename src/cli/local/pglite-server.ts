import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { createServer } from "node:net";
import { PgliteWireServer } from "./pglite-wire-server.js";

/**
 * The embedded Postgres: PGlite (Postgres compiled to WASM) served over the Postgres wire
 * protocol on loopback, so the same driver code talks to it as to a real server.
 * `dataDir` undefined keeps the database in memory (tests); a folder makes it survive restarts.
 * PGlite is one backend, so connections take turns a request cycle (or a whole transaction) at a
 * time; see pglite-wire-server.ts.
 */
export interface EmbeddedPostgres {
  url: string;
  host: string;
  port: number;
  stop(): Promise<void>;
}

export async function startEmbeddedPostgres(opts: { dataDir?: string; port?: number } = {}): Promise<EmbeddedPostgres> {
  // pgvector is loaded so knowledge bases (PgVector) work locally; `CREATE EXTENSION vector` enables it per database.
  const db = await PGlite.create({ ...(opts.dataDir ? { dataDir: opts.dataDir } : {}), extensions: { vector } });
  const port = opts.port ?? (await freePort());
  const server = new PgliteWireServer({ db, port, host: "127.0.0.1" });
  try {
    await server.start();
  } catch (err) {
    await db.close();
    throw err;
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    host: "127.0.0.1",
    port,
    stop: async () => {
      await server.stop();
      await db.close();
    },
  };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}
