import { z } from "zod";
import { CURRENT_SCHEMA_VERSION, MIGRATIONS } from "../../../migrations/index.js";
import { DatabaseUnavailableError, NotFoundError, ValidationError } from "../../errors.js";
import { publicError } from "../../public-error.js";
import { recordAudit } from "../audit.js";
import type { Context } from "hono";
import type { OSEnv } from "../context.js";
import type { Db } from "../../db/port.js";
import { defineRoute, handle, jsonAnswer, idSchema, routeApp } from "../route.js";
import { databaseStatusSchema, migrateAllResponseSchema, migrateOneResponseSchema } from "../wire/databases.js";

const target = z.object({ target_version: z.string().max(32).optional() }).strict();
const migrateRequest = {
  query: target,
  body: { required: false, content: { "application/json": { schema: target } } },
};

const migrateAll = defineRoute({
  method: "post",
  path: "/databases/all/migrate",
  tags: ["Databases"],
  summary: "Migrate every database to this build's schema (207 when some fail)",
  scope: { resource: "config", action: "write" },
  request: migrateRequest,
  responses: {
    200: jsonAnswer(migrateAllResponseSchema, "Every database migrated"),
    207: jsonAnswer(migrateAllResponseSchema, "Some databases failed to migrate: `failed` says which and why"),
  },
});
const migrateOne = defineRoute({
  method: "post",
  path: "/databases/{db_id}/migrate",
  tags: ["Databases"],
  summary: "Migrate one database to this build's schema",
  scope: { resource: "config", action: "write" },
  request: { ...migrateRequest, params: z.object({ db_id: idSchema }) },
  responses: {
    200: jsonAnswer(migrateOneResponseSchema, "The database migrated"),
    404: { description: "No database of this id" },
  },
});

const listDatabases = defineRoute({
  method: "get",
  path: "/databases",
  tags: ["Databases"],
  summary: "Each database's schema version and whether it needs a migration",
  description:
    "agno-edge's own: what the console's migration view shows before offering `POST /databases/{db_id}/migrate`.",
  scope: { resource: "config", action: "read" },
  responses: { 200: jsonAnswer(z.array(databaseStatusSchema), "One entry per database, in /config's order") },
});

/** A database's schema state, read as a request would find it; its unavailability is an answer, not a failure. */
async function statusOf(db: Db): Promise<z.infer<typeof databaseStatusSchema>> {
  const entry = { db_id: db.id, latest_version: CURRENT_SCHEMA_VERSION };
  try {
    const state = await db.init();
    return { ...entry, schema_version: await db.schemaVersion(), state };
  } catch (error) {
    const state = error instanceof DatabaseUnavailableError ? "unavailable" : "error";
    // An unexpected error is logged once, with the reference a 500 would have shown.
    if (state === "error") publicError(error, `status of ${db.id}`);
    return { ...entry, schema_version: null, state };
  }
}

/**
 * A database is always brought to the latest layout, which extends every earlier 3.x one; naming
 * an earlier version (agno's clients ask for "3.0.0") is accepted and gets the latest.
 */
function targetVersion(query: { target_version?: string }, body: { target_version?: string }): string | undefined {
  const wanted = query.target_version ?? body.target_version;
  if (wanted === undefined) return undefined;
  if (!MIGRATIONS.some((m) => m.version === wanted)) {
    throw new ValidationError(
      `target_version ${wanted} is not supported: this build migrates to ${CURRENT_SCHEMA_VERSION}`,
      "target_version",
    );
  }
  return CURRENT_SCHEMA_VERSION;
}

/** Migrates one database and records it in that database's audit trail, schema version before and after. */
async function migrateAudited(c: Context<OSEnv>, db: Db): Promise<void> {
  const result = await db.migrate();
  await recordAudit(
    c,
    {
      action: "migrate",
      resource_type: "database",
      resource_id: db.id,
      before_version: result.fromVersion,
      after_version: result.toVersion,
      details: { sessions_scanned: result.sessionsScanned, runs_copied: result.runsCopied },
    },
    db,
  );
}

const to = (version: string | undefined) => (version ? `to version ${version}` : "to latest version");

/** `POST /databases/{db_id}/migrate` and `POST /databases/all/migrate` (SPEC M4). */
export function databaseRoutes() {
  const app = routeApp();
  handle(app, listDatabases, async (c) => c.json(await Promise.all(c.env.dbs.map(statusOf))));
  handle(app, migrateAll, async (c) => {
    const version = targetVersion(c.req.valid("query"), c.req.valid("json"));
    const failed: Record<string, string> = {};
    const unavailable: DatabaseUnavailableError[] = [];
    for (const db of c.env.dbs) {
      try {
        await migrateAudited(c, db);
      } catch (e) {
        failed[db.id] = publicError(e, `migrate ${db.id}`).message;
        if (e instanceof DatabaseUnavailableError) unavailable.push(e);
      }
    }
    const total = c.env.dbs.length;
    const failures = Object.keys(failed).length;
    // Every database was out of reach: the request as a whole failed and may be retried (503 with
    // Retry-After), which a 207 (agno's answer when some fail) would not say.
    if (total > 0 && unavailable.length === total) throw unavailable[0];
    if (failures > 0)
      return c.json({ message: `Migrated ${total - failures}/${total} databases ${to(version)}`, failed }, 207);
    return c.json({ message: `All databases migrated successfully ${to(version)}` });
  });
  handle(app, migrateOne, async (c) => {
    const version = targetVersion(c.req.valid("query"), c.req.valid("json"));
    const { db_id } = c.req.valid("param");
    const db = c.env.dbs.find((d) => d.id === db_id);
    if (!db) throw new NotFoundError(`database ${db_id} not found`);
    await migrateAudited(c, db);
    return c.json({ message: `Database migrated successfully ${to(version)}` });
  });
  return app;
}
