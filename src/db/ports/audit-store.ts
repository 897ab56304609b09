import type { Page } from "../types.js";

/** What one write to a configuration resource records: who, what, and the version before and after. */
export interface AuditEntry {
  /** who made the write: a user id, `sa:<name>`, or how a caller without one was let in (`security_key`, `anonymous`) */
  principal: string | null;
  /** what was done, e.g. `create`, `update`, `delete`, `revoke`, `migrate` */
  action: string;
  /** the kind of resource, e.g. `service_account`, `schedule`, `database`, `component`, `config`, `approval` */
  resource_type: string;
  resource_id: string;
  /** the resource's version before the write (null when it did not exist) */
  before_version: string | null;
  /** its version after the write (null when it no longer exists) */
  after_version: string | null;
  /** anything else worth keeping (never a secret) */
  details?: Record<string, unknown> | null;
}

/** One stored audit row. */
export interface AuditRecord extends Required<AuditEntry> {
  id: string;
  /** epoch seconds */
  created_at: number;
}

export interface AuditQuery {
  limit?: number;
  page?: number;
  resourceType?: string;
  resourceId?: string;
  principal?: string;
}

/** The audit trail, reached as `db.audit`: append-only, read newest first. */
export interface AuditLog {
  /** appends one row and answers it as stored */
  record(entry: AuditEntry): Promise<AuditRecord>;
  /** a page of rows, newest first, optionally of one resource type, resource or principal */
  list(query?: AuditQuery): Promise<Page<AuditRecord>>;
}

/** Audit trail storage (src/db/ports). */
export interface AuditStore {
  readonly audit: AuditLog;
}
