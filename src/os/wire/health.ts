import { z } from "zod";
import { agnoDatetime, agnoObject } from "./agno-object.js";

export const healthResponseSchema = agnoObject(
  { model: "HealthResponse", file: "os/schema.py" },
  {
    status: z
      .string()
      .describe(
        '"ok", "degraded" while a database does not answer, or "misconfigured" while the settings are wrong (`detail` says which)',
      ),
    instantiated_at: agnoDatetime().describe("When this instance started serving"),
  },
  {
    detail: z.string().optional(),
    databases: z.array(z.strictObject({ id: z.string(), status: z.enum(["ok", "unavailable", "error"]) })),
  },
);
