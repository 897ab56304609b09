import type { AuthTokenRow, AuthTokenStore } from "./auth-token-store.js";

/** What the store needs of a Postgres client: `pg`'s and `@neondatabase/serverless`'s `Pool` both fit. */
export interface SqlQueryable {
  query(text: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[]; rowCount?: number | null }>;
}

/**
 * Sessions in agno's `agno_auth_tokens` table (same columns and unique key), created on first use,
 * so a database shared with an agno deployment holds one set of sign-ins.
 */
export class PostgresAuthTokenStore implements AuthTokenStore {
  private ready?: Promise<unknown>;
  private readonly table: string;

  constructor(
    private readonly db: SqlQueryable,
    opts: { schema?: string; table?: string } = {},
  ) {
    const ident = (s: string) => {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(s)) throw new Error(`not a plain SQL identifier: ${s}`);
      return `"${s}"`;
    };
    this.schema = opts.schema === undefined ? undefined : ident(opts.schema);
    this.table = `${this.schema ? `${this.schema}.` : ""}${ident(opts.table ?? "agno_auth_tokens")}`;
  }

  /** unset: the connection's search path, where the other agno tables are */
  private readonly schema: string | undefined;

  private init(): Promise<unknown> {
    this.ready ??= (async () => {
      if (this.schema) await this.db.query(`CREATE SCHEMA IF NOT EXISTS ${this.schema}`);
      await this.db.query(
        `CREATE TABLE IF NOT EXISTS ${this.table} (
          id varchar PRIMARY KEY,
          provider varchar NOT NULL,
          user_id varchar NOT NULL,
          service varchar NOT NULL,
          token_data jsonb NOT NULL,
          granted_scopes jsonb,
          created_at bigint NOT NULL,
          updated_at bigint,
          CONSTRAINT uq_auth_token_provider_user_service UNIQUE (provider, user_id, service)
        )`,
      );
    })().catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  async getAuthToken(provider: string, userId: string, service: string): Promise<AuthTokenRow | null> {
    await this.init();
    const { rows } = await this.db.query(
      `SELECT provider, user_id, service, token_data, granted_scopes, created_at, updated_at FROM ${this.table}
       WHERE provider = $1 AND user_id = $2 AND service = $3`,
      [provider, userId, service],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      ...(row as unknown as AuthTokenRow),
      created_at: Number(row.created_at),
      updated_at: row.updated_at == null ? undefined : Number(row.updated_at),
    };
  }

  async upsertAuthToken(row: AuthTokenRow): Promise<void> {
    await this.init();
    const now = Math.floor(Date.now() / 1000);
    await this.db.query(
      `INSERT INTO ${this.table} (id, provider, user_id, service, token_data, granted_scopes, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7, $7)
       ON CONFLICT (provider, user_id, service) DO UPDATE
       SET token_data = excluded.token_data, granted_scopes = excluded.granted_scopes, updated_at = excluded.updated_at`,
      [
        crypto.randomUUID(),
        row.provider,
        row.user_id,
        row.service,
        JSON.stringify(row.token_data),
        JSON.stringify(row.granted_scopes),
        now,
      ],
    );
  }

  async deleteAuthToken(provider: string, userId: string, service: string): Promise<boolean> {
    await this.init();
    const { rowCount } = await this.db.query(
      `DELETE FROM ${this.table} WHERE provider = $1 AND user_id = $2 AND service = $3`,
      [provider, userId, service],
    );
    return (rowCount ?? 0) > 0;
  }
}
