import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { createServer } from "node:net";

/**
 * The embedded Postgres: PGlite (Postgres compiled to WASM) served over the Postgres wire
 * protocol on loopback, so the same driver code talks to it as to a real server.
 * `dataDir` undefined keeps the database in memory (tests); a folder makes it survive restarts.
 */
export interface EmbeddedPostgres {
  url: string;
  host: string;
  port: number;
  stop(): Promise<void>;
}

export async function startEmbeddedPostgres(opts: { dataDir?: string; port?: number } = {}): Promise<EmbeddedPostgres> {
  const db = await PGlite.create(opts.dataDir ? { dataDir: opts.dataDir } : {});
  const port = opts.port ?? (await freePort());
  const server = new PGLiteSocketServer({ db, port, host: "127.0.0.1", maxConnections: 64 });
  await server.start();
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
