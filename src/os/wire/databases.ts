import { z } from "zod";
import { agnoObject } from "./agno-object.js";

/** agno's migrate routes answer plain dicts (no response model), built in `os/routers/database.py`. */
const file = "os/routers/database.py";

export const migrateAllResponseSchema = agnoObject(
  { model: "migrate_all_databases", file },
  {
    message: z.string(),
    failed: z.record(z.string(), z.string()).optional().describe("With 207: each database that failed, and why"),
    skipped: z.array(z.string()).optional().describe("Remote databases, which their own AgentOS migrates"),
  },
);

export const migrateOneResponseSchema = agnoObject({ model: "migrate_database", file }, { message: z.string() });

/**
 * One database's schema, as the console's migration view shows it. agno has no such route (its
 * clients call migrate blind), so this is agno-edge's own model, listed in beyond-agno.ts and in
 * the conformance suite's NOT_AGNO_MODELS.
 */
export const databaseStatusSchema = z
  .strictObject({
    db_id: z.string(),
    schema_version: z.string().nullable().describe("The schema version the database records; null before any"),
    latest_version: z.string().describe("The schema version this build writes"),
    state: z
      .enum(["current", "migration_required", "unavailable", "error"])
      .describe(
        "current: nothing to do; migration_required: POST /databases/{db_id}/migrate; unavailable: the database did not answer; error: it answered with an error",
      ),
  })
  .meta({ id: "DatabaseStatus" });
