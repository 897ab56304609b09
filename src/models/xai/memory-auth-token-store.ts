import type { AuthTokenRow, AuthTokenStore } from "./auth-token-store.js";

/** Sessions in this isolate's memory: for tests and single-process use (a Worker's isolates do not share it). */
export class MemoryAuthTokenStore implements AuthTokenStore {
  /** the rows as stored, by `provider/user/service`, so tests can look at what is at rest */
  readonly rows = new Map<string, AuthTokenRow>();

  getAuthToken(provider: string, userId: string, service: string): Promise<AuthTokenRow | null> {
    const row = this.rows.get(key(provider, userId, service));
    return Promise.resolve(row ? structuredClone(row) : null);
  }

  upsertAuthToken(row: AuthTokenRow): Promise<void> {
    const k = key(row.provider, row.user_id, row.service);
    const now = Math.floor(Date.now() / 1000);
    this.rows.set(k, structuredClone({ ...row, created_at: this.rows.get(k)?.created_at ?? now, updated_at: now }));
    return Promise.resolve();
  }

  deleteAuthToken(provider: string, userId: string, service: string): Promise<boolean> {
    return Promise.resolve(this.rows.delete(key(provider, userId, service)));
  }
}

const key = (provider: string, userId: string, service: string) => JSON.stringify([provider, userId, service]);
