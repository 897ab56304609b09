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
