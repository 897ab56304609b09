/** What a query answers: its rows as objects keyed by column name. */
export interface SqlResult {
  rows: Record<string, unknown>[];
}

/**
 * One database connection, held for one tool call. `query` must run exactly one statement (the
 * extended protocol): a text holding several is an error, so a model's SQL cannot end the
 * read-only transaction and run more after it.
 */
export interface SqlSession {
  query(text: string, params?: unknown[]): Promise<SqlResult>;
  release(): void | Promise<void>;
}

/** The port SQLTools reads through: a source of connections. */
export interface SqlConnector {
  connect(): Promise<SqlSession>;
}

/** A pool as node-postgres (`pg.Pool`) and Neon's serverless driver (`Pool`) shape it. */
export interface PgLikePool {
  connect(): Promise<{
    query(config: { text: string; values?: unknown[]; queryMode?: "extended" }): Promise<SqlResult>;
    release(): void;
  }>;
}

/** SQLTools over a `pg` or `@neondatabase/serverless` Pool (one pooled client per tool call, extended protocol). */
export function pgPoolConnector(pool: PgLikePool): SqlConnector {
  return {
    async connect() {
      const client = await pool.connect();
      return {
        query: (text, values) => client.query({ text, values: values ?? [], queryMode: "extended" }),
        release: () => client.release(),
      };
    },
  };
}
