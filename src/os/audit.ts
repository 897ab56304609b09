import type { Context } from "hono";
import type { AuditEntry, AuditRecord, Db } from "../db/port.js";
import { principalOf } from "./auth/scopes.js";
import type { OSEnv } from "./context.js";
import { dbFor } from "./routes/sessions.js";

/**
 * Who an audit row names for this request: the caller's user id (`sa:<name>` for a service
 * account), or, for a caller without one, how they got in (`security_key`, or `anonymous` with
 * auth off).
 */
export function auditPrincipal(c: Context<OSEnv>): string {
  const principal = principalOf(c);
  if (principal.userId) return principal.userId;
  const credential = c.get("credential");
  return credential === "none" || credential === undefined ? "anonymous" : credential;
}

/**
 * Records one write in the audit trail (`db.audit`, the default database's unless `db` is given),
 * as the request's caller. Every route that writes a component, a config, an approval, a service
 * account, a schedule or a database's schema calls this once its write has committed (a store that
 * can, like the service accounts', writes the row in the write's own statement instead).
 *
 * @example
 * const after = await store.updateSchedule(id, changes, scope);
 * await recordAudit(c, { action: "update", resource_type: "schedule", resource_id: id, before_version, after_version: String(after.updated_at) });
 */
export function recordAudit(
  c: Context<OSEnv>,
  entry: Omit<AuditEntry, "principal">,
  db: Db = dbFor(c),
): Promise<AuditRecord> {
  return db.audit.record({ ...entry, principal: auditPrincipal(c) });
}
