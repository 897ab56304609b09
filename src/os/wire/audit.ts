import { z } from "zod";
import { paginationInfoSchema } from "./paginated.js";

/**
 * One row of the audit trail. agno has no audit trail, so this is agno-edge's own model (listed
 * in the conformance suite's NOT_AGNO_MODELS and in beyond-agno.ts with the reason).
 */
export const auditEntrySchema = z
  .strictObject({
    id: z.string(),
    principal: z
      .string()
      .nullable()
      .describe("Who wrote: a user id, sa:<name>, or security_key / anonymous for a caller without one"),
    action: z.string().describe("create, update, delete, enable, disable, revoke, migrate, …"),
    resource_type: z.string().describe("service_account, schedule, database, component, config, approval, …"),
    resource_id: z.string(),
    before_version: z.string().nullable().describe("The resource's version before the write; null if it did not exist"),
    after_version: z.string().nullable().describe("Its version after the write; null once deleted"),
    details: z.record(z.string(), z.unknown()).nullable(),
    created_at: z.int().describe("Epoch seconds"),
  })
  .meta({ id: "AuditLogEntry" });

export const auditListSchema = z
  .strictObject({ data: z.array(auditEntrySchema), meta: paginationInfoSchema })
  .meta({ id: "PaginatedResponse_AuditLogEntry_" });
