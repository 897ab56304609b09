import { AgnoError } from "../errors.js";

/**
 * The Postgres server behind a PgVector store has no `vector` extension (and it cannot be
 * created): the knowledge base cannot store or search vectors there. 503, as a missing capability
 * of the deployment, never the request's fault.
 */
export class VectorExtensionUnavailableError extends AgnoError {
  override readonly status = 503;
  override readonly errorId = "vector_extension_unavailable";
  readonly extension = "vector";
  constructor(detail: string, options?: { cause?: unknown }) {
    super(
      `the PostgreSQL extension "vector" (pgvector) is not available on this server: ${detail}. ` +
        "Install pgvector on the server (or use Neon / PGlite with @electric-sql/pglite-pgvector)",
      options,
    );
  }
}

/**
 * A vector table made without agno 3.0's `user_id` column was searched or written with a user id:
 * refusing beats returning every user's rows. The message says how to migrate.
 */
export class VectorTableMigrationRequiredError extends AgnoError {
  override readonly status = 503;
  override readonly errorId = "migration_required_error";
  constructor(table: string) {
    super(
      `vector table ${table} has no user_id column, so it cannot isolate users' rows: ` +
        `run ALTER TABLE ${table} ADD COLUMN IF NOT EXISTS user_id VARCHAR; ` +
        `CREATE INDEX IF NOT EXISTS ${table.replace(/"/g, "").replace(/\./g, "_")}_user_id_idx ON ${table} (user_id); ` +
        "rows written before then are shared (user_id NULL)",
    );
  }
}

/** No reader for this content's type: 400 naming the type, as agno's upload route refuses it. */
export class UnsupportedContentTypeError extends AgnoError {
  override readonly status = 400;
  override readonly errorId = "unsupported_content_type";
  constructor(readonly contentType: string) {
    super(`unsupported content type ${JSON.stringify(contentType)}`);
  }
}

/** The embedder failed (after its retries); what ingestion records as the content's status_message. */
export class EmbedderError extends AgnoError {
  override readonly status = 502;
  override readonly errorId = "embedder_error";
  constructor(
    message: string,
    readonly statusCode?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
