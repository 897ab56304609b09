import { sql, type SQL } from "drizzle-orm";
import { auditRecord } from "../audit-entry.js";
import { pageOf, resolvePage } from "../pagination.js";
import type { AuditEntry, AuditLog, AuditQuery, AuditRecord } from "../ports/audit-store.js";
import type { Page } from "../types.js";
import { pgJson } from "../../json-limits.js";
import { num, str } from "./rows.js";
import type { Exec } from "./schema-state.js";
import { rethrowUnavailable } from "./unavailable.js";

/** What the audit table borrows from its PostgresDb. */
export interface AuditDeps {
  exec: Exec;
  /** resolves once the database holds the current layout */
  ready: () => Promise<void>;
  auditLog: SQL;
}

const COLUMNS = sql.raw(
  "id, principal, action, resource_type, resource_id, before_version, after_version, details, created_at",
);

/** One audit row as it leaves Postgres. */
export function toAuditRecord(row: Record<string, unknown>): AuditRecord {
  return {
    id: String(row.id),
    principal: str(row.principal),
    action: String(row.action),
    resource_type: String(row.resource_type),
    resource_id: String(row.resource_id),
    before_version: str(row.before_version),
    after_version: str(row.after_version),
    details: (row.details as Record<string, unknown> | null) ?? null,
    created_at: num(row.created_at),
  };
}

/**
 * The INSERT of one audit row, as a statement of its own or (`from`) as a data-modifying CTE of
 * the write it records, which then runs once per row `from` returns: one statement, so the write
 * and its audit row commit together or not at all.
 */
export function auditInsert(table: SQL, entry: AuditEntry, from?: SQL): SQL {
  const r = auditRecord(entry);
  const values = sql`${r.id}, ${r.principal}, ${r.action}, ${r.resource_type}, ${r.resource_id}, ${r.before_version}, ${r.after_version}, ${r.details === null ? null : pgJson(r.details)}::jsonb, ${r.created_at}`;
  return from
    ? sql`INSERT INTO ${table} (${COLUMNS}) SELECT ${values} FROM ${from}`
    : sql`INSERT INTO ${table} (${COLUMNS}) VALUES (${values}) RETURNING ${COLUMNS}`;
}

/** The audit trail on Postgres (`db.audit`, `agno_audit_log`): append-only; listed newest first by insertion order. */
export class PostgresAuditLog implements AuditLog {
  constructor(private readonly d: AuditDeps) {}

  async record(entry: AuditEntry): Promise<AuditRecord> {
    const statement = auditInsert(this.d.auditLog, entry);
    await this.d.ready();
    const [row] = await this.d.exec(statement);
    return toAuditRecord(row!);
  }

  async list(query: AuditQuery = {}): Promise<Page<AuditRecord>> {
    const page = resolvePage(query);
    const filters: SQL[] = [sql`TRUE`];
    if (query.resourceType !== undefined) filters.push(sql`resource_type = ${query.resourceType}`);
    if (query.resourceId !== undefined) filters.push(sql`resource_id = ${query.resourceId}`);
    if (query.principal !== undefined) filters.push(sql`principal = ${query.principal}`);
    const where = sql.join(filters, sql` AND `);
    await this.d.ready();
    const rows = await this.d.exec(sql`
      SELECT ${COLUMNS}, COUNT(*) OVER () AS total_count FROM ${this.d.auditLog} WHERE ${where}
      ORDER BY seq DESC LIMIT ${page.limit} OFFSET ${page.offset}`);
    const total =
      rows.length > 0
        ? num(rows[0]!.total_count)
        : page.offset === 0
          ? 0
          : num((await this.d.exec(sql`SELECT COUNT(*) AS n FROM ${this.d.auditLog} WHERE ${where}`))[0]!.n);
    return pageOf(rows.map(toAuditRecord), total, page);
  }
}

rethrowUnavailable(PostgresAuditLog);
