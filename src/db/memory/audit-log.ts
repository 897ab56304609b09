import type { AuditEntry, AuditLog, AuditQuery, AuditRecord } from "../ports/audit-store.js";
import { pageOf, resolvePage } from "../pagination.js";
import type { Page } from "../types.js";
import { auditRecord } from "../audit-entry.js";
import { copy, type MemoryTables } from "./tables.js";

/** The audit trail in memory (`db.audit`), with the Postgres adapter's rules: validated, append-only, newest first. */
export class MemoryAuditLog implements AuditLog {
  constructor(private readonly t: MemoryTables) {}

  async record(entry: AuditEntry): Promise<AuditRecord> {
    return copy(this.append(entry));
  }

  /** appends synchronously, so a store's transaction (MemoryTables.transaction) covers it */
  append(entry: AuditEntry): AuditRecord {
    const row = auditRecord(entry);
    this.t.auditLog.push(row);
    return row;
  }

  async list(query: AuditQuery = {}): Promise<Page<AuditRecord>> {
    const page = resolvePage(query);
    const rows = this.t.auditLog
      .filter(
        (r) =>
          (query.resourceType === undefined || r.resource_type === query.resourceType) &&
          (query.resourceId === undefined || r.resource_id === query.resourceId) &&
          (query.principal === undefined || r.principal === query.principal),
      )
      .reverse();
    return pageOf(copy(rows.slice(page.offset, page.offset + page.limit)), rows.length, page);
  }
}
