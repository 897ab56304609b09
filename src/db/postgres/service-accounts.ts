import { sql, type SQL } from "drizzle-orm";
import { ConflictError } from "../../errors.js";
import { pageOf, resolvePage } from "../pagination.js";
import type {
  ListServiceAccountsOptions,
  ServiceAccountRecord,
  ServiceAccountScope,
  ServiceAccountStore,
} from "../ports/service-account-store.js";
import { checkServiceAccount, serviceAccountSort, TOUCH_INTERVAL_SECONDS } from "../service-account-rules.js";
import type { Page } from "../types.js";
import { validateId } from "../validate.js";
import { pgJson } from "../../json-limits.js";
import { auditInsert } from "./audit-log.js";
import { num, numOrNull, str } from "./rows.js";
import type { Exec } from "./schema-state.js";
import { rethrowUnavailable } from "./unavailable.js";

/** What the service accounts table borrows from its PostgresDb. */
export interface ServiceAccountDeps {
  exec: Exec;
  ready: () => Promise<void>;
  serviceAccounts: SQL;
  auditLog: SQL;
}

const COLUMNS = sql.raw(
  "id, name, user_id, token_hash, token_prefix, scopes, created_at, expires_at, last_used_at, revoked_at, created_by",
);

function toAccount(row: Record<string, unknown>): ServiceAccountRecord {
  return {
    id: String(row.id),
    name: String(row.name),
    user_id: str(row.user_id),
    token_hash: String(row.token_hash),
    token_prefix: String(row.token_prefix),
    scopes: Array.isArray(row.scopes) ? (row.scopes as string[]) : [],
    created_at: num(row.created_at),
    expires_at: numOrNull(row.expires_at),
    last_used_at: numOrNull(row.last_used_at),
    revoked_at: numOrNull(row.revoked_at),
    created_by: str(row.created_by),
  };
}

/** Postgres reports a broken unique key as 23505, also when drizzle wraps the driver's error. */
function isUniqueViolation(error: unknown): boolean {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e)
    if (e.code === "23505") return true;
  return false;
}

/** The owner's accounts and the workspace-level ones (`user_id IS NULL`), or every account. */
const visible = (scope: ServiceAccountScope): SQL =>
  scope.userId === undefined ? sql`TRUE` : sql`(user_id = ${scope.userId} OR user_id IS NULL)`;

/**
 * Service accounts on Postgres (`db.serviceAccounts`, agno's `agno_service_accounts`). Creating
 * and revoking write their audit row in the same statement (a data-modifying CTE).
 */
export class PostgresServiceAccountStore implements ServiceAccountStore {
  constructor(private readonly d: ServiceAccountDeps) {}

  async create(account: ServiceAccountRecord, by: string | null): Promise<ServiceAccountRecord> {
    const a = checkServiceAccount(account);
    const audit = auditInsert(
      this.d.auditLog,
      {
        principal: by,
        action: "create",
        resource_type: "service_account",
        resource_id: a.id,
        before_version: null,
        after_version: "active",
        details: { name: a.name, scopes: a.scopes, expires_at: a.expires_at },
      },
      sql`created`,
    );
    await this.d.ready();
    try {
      const [row] = await this.d.exec(sql`
        WITH created AS (
          INSERT INTO ${this.d.serviceAccounts} (${COLUMNS})
          VALUES (${a.id}, ${a.name}, ${a.user_id}, ${a.token_hash}, ${a.token_prefix}, ${pgJson(a.scopes)}::jsonb,
            ${a.created_at}, ${a.expires_at}, ${a.last_used_at}, ${a.revoked_at}, ${a.created_by})
          RETURNING ${COLUMNS}
        ), audited AS (${audit})
        SELECT * FROM created`);
      return toAccount(row!);
    } catch (error) {
      if (isUniqueViolation(error))
        throw new ConflictError(
          `An active service account named '${a.name}' already exists. Revoke it first to rotate.`,
        );
      throw error;
    }
  }

  async get(id: string, scope: ServiceAccountScope = {}): Promise<ServiceAccountRecord | null> {
    validateId(id, "service_account_id");
    await this.d.ready();
    const [row] = await this.d.exec(
      sql`SELECT ${COLUMNS} FROM ${this.d.serviceAccounts} WHERE id = ${id} AND ${visible(scope)}`,
    );
    return row ? toAccount(row) : null;
  }

  async list(
    opts: ListServiceAccountsOptions = {},
    scope: ServiceAccountScope = {},
  ): Promise<Page<ServiceAccountRecord>> {
    const page = resolvePage(opts);
    const { column, order } = serviceAccountSort(opts);
    const where = sql`${visible(scope)} AND ${(opts.includeRevoked ?? true) ? sql`TRUE` : sql`revoked_at IS NULL`}`;
    const direction = sql.raw(order === "asc" ? "ASC" : "DESC");
    await this.d.ready();
    const rows = await this.d.exec(sql`
      SELECT ${COLUMNS}, COUNT(*) OVER () AS total_count FROM ${this.d.serviceAccounts} WHERE ${where}
      ORDER BY ${sql.raw(column)} ${direction}, id ${direction} LIMIT ${page.limit} OFFSET ${page.offset}`);
    const total =
      rows.length > 0
        ? num(rows[0]!.total_count)
        : page.offset === 0
          ? 0
          : num((await this.d.exec(sql`SELECT COUNT(*) AS n FROM ${this.d.serviceAccounts} WHERE ${where}`))[0]!.n);
    return pageOf(rows.map(toAccount), total, page);
  }

  async byTokenHash(tokenHash: string): Promise<ServiceAccountRecord | null> {
    await this.d.ready();
    const [row] = await this.d.exec(
      sql`SELECT ${COLUMNS} FROM ${this.d.serviceAccounts} WHERE token_hash = ${tokenHash}`,
    );
    return row ? toAccount(row) : null;
  }

  async revoke(id: string, at: number, by: string | null): Promise<ServiceAccountRecord | null> {
    validateId(id, "service_account_id");
    const audit = auditInsert(
      this.d.auditLog,
      {
        principal: by,
        action: "revoke",
        resource_type: "service_account",
        resource_id: id,
        before_version: "active",
        after_version: "revoked",
        details: null,
      },
      sql`revoked`,
    );
    await this.d.ready();
    // Only an active account is revoked (and audited); an already revoked one keeps its time.
    await this.d.exec(sql`
      WITH revoked AS (
        UPDATE ${this.d.serviceAccounts} SET revoked_at = ${at} WHERE id = ${id} AND revoked_at IS NULL RETURNING id
      ), audited AS (${audit})
      SELECT id FROM revoked`);
    const [row] = await this.d.exec(sql`SELECT ${COLUMNS} FROM ${this.d.serviceAccounts} WHERE id = ${id}`);
    return row ? toAccount(row) : null;
  }

  async touch(id: string, at: number): Promise<void> {
    await this.d.ready();
    await this.d.exec(sql`
      UPDATE ${this.d.serviceAccounts} SET last_used_at = ${at}
      WHERE id = ${id} AND (last_used_at IS NULL OR last_used_at <= ${at - TOUCH_INTERVAL_SECONDS})`);
  }
}

rethrowUnavailable(PostgresServiceAccountStore);
