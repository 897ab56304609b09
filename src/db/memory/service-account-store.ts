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
import type { MemoryAuditLog } from "./audit-log.js";
import { compareIds, copy, userMatches, type MemoryTables } from "./tables.js";

/** Service accounts in memory (`db.serviceAccounts`), with the Postgres adapter's rules and its audit rows in the same transaction. */
export class MemoryServiceAccountStore implements ServiceAccountStore {
  constructor(
    private readonly t: MemoryTables,
    private readonly audit: MemoryAuditLog,
  ) {}

  async create(account: ServiceAccountRecord, by: string | null): Promise<ServiceAccountRecord> {
    const a = checkServiceAccount(account);
    return copy(
      this.t.transaction(() => {
        const rows = [...this.t.serviceAccounts.values()];
        if (rows.some((r) => r.name === a.name && r.revoked_at === null))
          throw new ConflictError(
            `An active service account named '${a.name}' already exists. Revoke it first to rotate.`,
          );
        if (this.t.serviceAccounts.has(a.id) || rows.some((r) => r.token_hash === a.token_hash))
          throw new ConflictError(`service account ${a.id} already exists`);
        this.t.serviceAccounts.set(a.id, a);
        this.audit.append({
          principal: by,
          action: "create",
          resource_type: "service_account",
          resource_id: a.id,
          before_version: null,
          after_version: "active",
          details: { name: a.name, scopes: a.scopes, expires_at: a.expires_at },
        });
        return a;
      }),
    );
  }

  async get(id: string, scope: ServiceAccountScope = {}): Promise<ServiceAccountRecord | null> {
    validateId(id, "service_account_id");
    const row = this.t.serviceAccounts.get(id);
    return row && userMatches(row.user_id, { ...scope, includeShared: true }) ? copy(row) : null;
  }

  async list(
    opts: ListServiceAccountsOptions = {},
    scope: ServiceAccountScope = {},
  ): Promise<Page<ServiceAccountRecord>> {
    const page = resolvePage(opts);
    const { column, order } = serviceAccountSort(opts);
    const sign = order === "asc" ? 1 : -1;
    const rows = [...this.t.serviceAccounts.values()]
      .filter((r) => (opts.includeRevoked ?? true) || r.revoked_at === null)
      .filter((r) => userMatches(r.user_id, { ...scope, includeShared: true }))
      .sort((a, b) => {
        const x = a[column];
        const y = b[column];
        // Postgres' order: NULLs last ascending, first descending.
        if (x !== y) {
          if (x === null) return sign;
          if (y === null) return -sign;
          return (x < y ? -1 : 1) * sign;
        }
        return compareIds(a.id, b.id) * sign;
      });
    return pageOf(copy(rows.slice(page.offset, page.offset + page.limit)), rows.length, page);
  }

  async byTokenHash(tokenHash: string): Promise<ServiceAccountRecord | null> {
    const row = [...this.t.serviceAccounts.values()].find((r) => r.token_hash === tokenHash);
    return row ? copy(row) : null;
  }

  async revoke(id: string, at: number, by: string | null): Promise<ServiceAccountRecord | null> {
    validateId(id, "service_account_id");
    return this.t.transaction(() => {
      const row = this.t.serviceAccounts.get(id);
      if (!row) return null;
      if (row.revoked_at !== null) return copy(row);
      const revoked = { ...row, revoked_at: at };
      this.t.serviceAccounts.set(id, revoked);
      this.audit.append({
        principal: by,
        action: "revoke",
        resource_type: "service_account",
        resource_id: id,
        before_version: "active",
        after_version: "revoked",
        details: { name: row.name },
      });
      return copy(revoked);
    });
  }

  async touch(id: string, at: number): Promise<void> {
    const row = this.t.serviceAccounts.get(id);
    if (row && (row.last_used_at === null || row.last_used_at <= at - TOUCH_INTERVAL_SECONDS))
      this.t.serviceAccounts.set(id, { ...row, last_used_at: at });
  }
}
