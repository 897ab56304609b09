import { Hono } from "hono";
import { z } from "zod";
import { CURRENT_SCHEMA_VERSION } from "../../../migrations/index.js";
import { NotFoundError, ValidationError } from "../../errors.js";
import type { Db } from "../../db/port.js";
import type { OSEnv } from "../context.js";
import { requireScope } from "../auth/scopes.js";
import { parseInput, readJson } from "../params.js";

const migrateInput = z.object({ target_version: z.string().max(32).optional() }).strict();

async function targetVersion(request: Request, query: Record<string, string>): Promise<string | undefined> {
  const body = parseInput(migrateInput, await readJson(request), "body");
  const params = parseInput(migrateInput, query, "query");
  const target = params.target_version ?? body.target_version;
  if (target !== undefined && target !== CURRENT_SCHEMA_VERSION) {
    throw new ValidationError(`target_version ${target} is not supported: this build migrates to ${CURRENT_SCHEMA_VERSION} only`, "target_version");
  }
  return target;
}

function message(target: string | undefined): string {
  return target ? `to version ${target}` : "to latest version";
}

/** `POST /databases/{db_id}/migrate` and `POST /databases/all/migrate` (SPEC M4). */
export function databaseRoutes() {
  const app = new Hono<OSEnv>();
  app.post("/databases/all/migrate", requireScope("config", "write"), async (c) => {
    const target = await targetVersion(c.req.raw, c.req.query());
    const failed: Record<string, string> = {};
    const results: Record<string, unknown> = {};
    for (const db of c.env.dbs) {
      try {
        results[db.id] = await db.migrate();
      } catch (e) {
        failed[db.id] = e instanceof Error ? e.message : String(e);
      }
    }
    const total = c.env.dbs.length;
    const failures = Object.keys(failed).length;
    if (failures > 0) {
      return c.json({ message: `Migrated ${total - failures}/${total} databases ${message(target)}`, failed, results }, 207);
    }
    return c.json({ message: `All databases migrated successfully ${message(target)}`, results });
  });
  app.post("/databases/:db_id/migrate", requireScope("config", "write"), async (c) => {
    const target = await targetVersion(c.req.raw, c.req.query());
    const db: Db | undefined = c.env.dbs.find((d) => d.id === c.req.param("db_id"));
    if (!db) throw new NotFoundError(`database ${c.req.param("db_id")} not found`);
    const result = await db.migrate();
    return c.json({ message: `Database migrated successfully ${message(target)}`, result });
  });
  return app;
}
