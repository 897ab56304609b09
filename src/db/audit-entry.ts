import { z } from "zod";
import { ValidationError } from "../errors.js";
import { nowSeconds } from "../time.js";
import { pgSafe } from "../json-limits.js";
import type { AuditEntry, AuditRecord } from "./ports/audit-store.js";

const text = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((s) => !/[\u0000-\u001f]/.test(s), "must be printable");
const entrySchema = z.object({
  principal: text(255).nullable(),
  action: text(64),
  resource_type: text(64),
  resource_id: text(512),
  before_version: text(128).nullable(),
  after_version: text(128).nullable(),
  details: z.record(z.string(), z.unknown()).nullable().optional(),
});

/** An entry checked and completed into the row every adapter stores (a new id, the time now). */
export function auditRecord(entry: AuditEntry): AuditRecord {
  const parsed = entrySchema.safeParse(entry);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.join(".");
    throw new ValidationError(`audit ${field}: ${issue.message}`, field);
  }
  const e = parsed.data;
  return {
    id: crypto.randomUUID(),
    principal: e.principal,
    action: e.action,
    resource_type: e.resource_type,
    resource_id: e.resource_id,
    before_version: e.before_version,
    after_version: e.after_version,
    details: e.details == null ? null : (pgSafe(e.details) as Record<string, unknown>),
    created_at: nowSeconds(),
  };
}
