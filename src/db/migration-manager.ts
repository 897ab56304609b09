import type { Db, MigrateOptions, MigrationResult } from "./port.js";

/**
 * Upgrades databases from agno 2.x's layout (runs inside session blobs) to 3.0's (runs as
 * rows). Non-destructive (the legacy column stays as a backup until
 * `db.cleanupLegacyRunsColumn({ force: true })`), idempotent, and resumable after a crash.
 *
 * @example
 * const result = await new MigrationManager(db).up({ onProgress: (p) => console.log(p) });
 * console.log(`${result.runsCopied} runs copied`);
 */
export class MigrationManager {
  private readonly dbs: Db[];

  constructor(db: Db | Db[]) {
    this.dbs = Array.isArray(db) ? db : [db];
  }

  /** Migrates every database in turn; the results are keyed by database id. */
  async up(opts: MigrateOptions = {}): Promise<Record<string, MigrationResult>> {
    const results: Record<string, MigrationResult> = {};
    for (const db of this.dbs) results[db.id] = await db.migrate(opts);
    return results;
  }
}
