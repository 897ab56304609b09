import { sql, type SQL } from "drizzle-orm";
import { ConflictError } from "../../errors.js";
import { pgJson } from "../../json-limits.js";
import { nowSeconds } from "../../time.js";
import {
  learningSortColumn,
  learningUsersSort,
  orderOf,
  validateLearning,
  validateLearningChanges,
} from "../learning-rows.js";
import { pageOf, resolvePage } from "../pagination.js";
import type {
  LearningFilter,
  LearningRecord,
  LearningUsersOptions,
  LearningUserStats,
  LearningWrite,
  ListLearningsOptions,
} from "../ports/learning-store.js";
import type { Page } from "../types.js";
import { validateId } from "../validate.js";
import type { Exec } from "./schema-state.js";

const COLUMNS =
  "learning_id, learning_type, namespace, user_id, agent_id, team_id, workflow_id, session_id, entity_id, entity_type, content, metadata, created_at, updated_at";

const text = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

function toLearning(row: Record<string, unknown>): LearningRecord {
  return {
    learning_id: String(row.learning_id),
    learning_type: String(row.learning_type),
    namespace: text(row.namespace),
    user_id: text(row.user_id),
    agent_id: text(row.agent_id),
    team_id: text(row.team_id),
    workflow_id: text(row.workflow_id),
    session_id: text(row.session_id),
    entity_id: text(row.entity_id),
    entity_type: text(row.entity_type),
    content: (row.content as Record<string, unknown> | null) ?? {},
    metadata: (row.metadata as Record<string, unknown> | null) ?? null,
    created_at: Number(row.created_at),
    updated_at: row.updated_at === null ? null : Number(row.updated_at),
  };
}

function where(f: LearningFilter): SQL {
  const parts: SQL[] = [sql`TRUE`];
  if (f.learningType !== undefined) parts.push(sql`learning_type = ${f.learningType}`);
  if (f.userId !== undefined)
    parts.push(f.includeShared ? sql`(user_id = ${f.userId} OR user_id IS NULL)` : sql`user_id = ${f.userId}`);
  if (f.agentId !== undefined) parts.push(sql`agent_id = ${f.agentId}`);
  if (f.teamId !== undefined) parts.push(sql`team_id = ${f.teamId}`);
  if (f.workflowId !== undefined) parts.push(sql`workflow_id = ${f.workflowId}`);
  if (f.sessionId !== undefined) parts.push(sql`session_id = ${f.sessionId}`);
  if (f.namespace !== undefined) parts.push(sql`namespace = ${f.namespace}`);
  if (f.entityId !== undefined) parts.push(sql`entity_id = ${f.entityId}`);
  if (f.entityType !== undefined) parts.push(sql`entity_type = ${f.entityType}`);
  return sql.join(parts, sql` AND `);
}

/** `agno_learnings` reads and writes (agno's LEARNINGS_TABLE_SCHEMA). */
export class LearningTable {
  constructor(
    private readonly exec: Exec,
    private readonly table: SQL,
  ) {}

  private async insert(record: LearningWrite, onConflict: "update" | "nothing"): Promise<LearningRecord | null> {
    const v = validateLearning(record);
    const now = nowSeconds();
    // The owner is part of a row's identity: a write under another owner's id changes nothing.
    const conflict =
      onConflict === "update"
        ? sql`DO UPDATE SET content = EXCLUDED.content, metadata = EXCLUDED.metadata, updated_at = EXCLUDED.updated_at
          WHERE t.user_id IS NOT DISTINCT FROM EXCLUDED.user_id`
        : sql`DO NOTHING`;
    const [row] = await this.exec(sql`
      INSERT INTO ${this.table} AS t (${sql.raw(COLUMNS)})
      VALUES (${v.learning_id}, ${v.learning_type}, ${v.namespace}, ${v.user_id}, ${v.agent_id}, ${v.team_id},
        ${v.workflow_id}, ${v.session_id}, ${v.entity_id}, ${v.entity_type}, ${pgJson(v.content)}::jsonb,
        ${v.metadata === null ? null : pgJson(v.metadata)}::jsonb, ${now}, ${now})
      ON CONFLICT (learning_id) ${conflict}
      RETURNING ${sql.raw(COLUMNS)}`);
    return row ? toLearning(row) : null;
  }

  async upsert(record: LearningWrite): Promise<LearningRecord> {
    const row = await this.insert(record, "update");
    if (!row) throw new ConflictError(`learning ${record.learning_id} belongs to another owner`);
    return row;
  }

  async create(record: LearningWrite): Promise<LearningRecord> {
    const row = await this.insert(record, "nothing");
    if (!row) throw new ConflictError(`learning ${record.learning_id} already exists`);
    return row;
  }

  async get(learningId: string): Promise<LearningRecord | null> {
    validateId(learningId, "learning_id");
    const [row] = await this.exec(sql`SELECT ${sql.raw(COLUMNS)} FROM ${this.table} WHERE learning_id = ${learningId}`);
    return row ? toLearning(row) : null;
  }

  async update(
    learningId: string,
    changes: { content: Record<string, unknown>; metadata: Record<string, unknown> | null },
  ): Promise<LearningRecord | null> {
    validateId(learningId, "learning_id");
    const v = validateLearningChanges(changes);
    const [row] = await this.exec(sql`
      UPDATE ${this.table} SET content = ${pgJson(v.content)}::jsonb,
        metadata = ${v.metadata === null ? null : pgJson(v.metadata)}::jsonb, updated_at = ${nowSeconds()}
      WHERE learning_id = ${learningId} RETURNING ${sql.raw(COLUMNS)}`);
    return row ? toLearning(row) : null;
  }

  async delete(learningId: string): Promise<boolean> {
    validateId(learningId, "learning_id");
    const rows = await this.exec(
      sql`DELETE FROM ${this.table} WHERE learning_id = ${learningId} RETURNING learning_id`,
    );
    return rows.length > 0;
  }

  async deleteForUser(userId: string, learningType?: string): Promise<number> {
    validateId(userId, "user_id");
    const rows = await this.exec(sql`DELETE FROM ${this.table} WHERE user_id = ${userId}
      ${learningType === undefined ? sql`` : sql`AND learning_type = ${learningType}`} RETURNING learning_id`);
    return rows.length;
  }

  async list(opts: ListLearningsOptions): Promise<Page<LearningRecord>> {
    const page = resolvePage(opts);
    const column = sql.raw(learningSortColumn(opts.sortBy));
    const order = sql.raw(orderOf(opts.sortOrder) === "asc" ? "ASC" : "DESC");
    const rows = await this.exec(sql`
      SELECT ${sql.raw(COLUMNS)}, COUNT(*) OVER () AS total_count FROM ${this.table}
      WHERE ${where(opts)} ORDER BY ${column} ${order}, learning_id LIMIT ${page.limit} OFFSET ${page.offset}`);
    const total = rows.length > 0 ? Number(rows[0]!.total_count) : await this.count(opts, page.offset);
    return pageOf(rows.map(toLearning), total, page);
  }

  /** The total when the page came back empty (a page past the end still reports it). */
  private async count(f: LearningFilter, offset: number): Promise<number> {
    if (offset === 0) return 0;
    const [row] = await this.exec(sql`SELECT COUNT(*) AS n FROM ${this.table} WHERE ${where(f)}`);
    return Number(row?.n ?? 0);
  }

  async users(opts: LearningUsersOptions): Promise<Page<LearningUserStats>> {
    const page = resolvePage({ limit: opts.limit ?? 20, page: opts.page });
    const by = learningUsersSort(opts.sortBy) === "user_id" ? sql.raw("user_id") : sql.raw("MAX(updated_at)");
    const order = sql.raw(orderOf(opts.sortOrder) === "asc" ? "ASC" : "DESC");
    const filter = sql.join(
      [
        sql`user_id IS NOT NULL`,
        ...(opts.learningType !== undefined ? [sql`learning_type = ${opts.learningType}`] : []),
        ...(opts.userId !== undefined ? [sql`user_id = ${opts.userId}`] : []),
      ],
      sql` AND `,
    );
    const rows = await this.exec(sql`
      SELECT user_id, MAX(updated_at) AS last_learning_updated_at, COUNT(*) OVER () AS total_count
      FROM ${this.table} WHERE ${filter} GROUP BY user_id
      ORDER BY ${by} ${order}, user_id LIMIT ${page.limit} OFFSET ${page.offset}`);
    let total = rows.length > 0 ? Number(rows[0]!.total_count) : 0;
    if (rows.length === 0 && page.offset > 0) {
      const [row] = await this.exec(sql`SELECT COUNT(DISTINCT user_id) AS n FROM ${this.table} WHERE ${filter}`);
      total = Number(row?.n ?? 0);
    }
    return pageOf(
      rows.map((r) => ({
        user_id: String(r.user_id),
        last_learning_updated_at: r.last_learning_updated_at === null ? null : Number(r.last_learning_updated_at),
      })),
      total,
      page,
    );
  }
}
