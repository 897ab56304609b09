import { sql, type SQL } from "drizzle-orm";
import { ConflictError } from "../../errors.js";
import { pgJson, pgSafe } from "../../json-limits.js";
import { checkEvalName, checkEvalQuery, evalRunRow } from "../eval-rows.js";
import { pageOf, resolvePage } from "../pagination.js";
import type {
  EvalRunQuery,
  EvalRunRecord,
  EvalRunStore,
  EvalRunWrite,
  EvalScope,
  EvalType,
} from "../ports/eval-store.js";
import type { Page } from "../types.js";
import { nowSeconds } from "../../time.js";
import { num, numOrNull, str } from "./rows.js";
import type { Exec } from "./schema-state.js";
import { rethrowUnavailable } from "./unavailable.js";

/** What the eval table borrows from its PostgresDb. */
export interface EvalDeps {
  exec: Exec;
  /** resolves once the database holds the current layout */
  ready: () => Promise<void>;
  evals: SQL;
}

const COLUMNS = sql.raw(
  "run_id, eval_type, eval_data, eval_input, name, agent_id, team_id, workflow_id, model_id, model_provider, evaluated_component_name, user_id, created_at, updated_at",
);

/** One eval row as it leaves Postgres. */
function toEvalRunRecord(row: Record<string, unknown>): EvalRunRecord {
  return {
    run_id: String(row.run_id),
    eval_type: String(row.eval_type) as EvalType,
    eval_data: (row.eval_data as Record<string, unknown>) ?? {},
    eval_input: (row.eval_input as Record<string, unknown>) ?? {},
    name: str(row.name),
    agent_id: str(row.agent_id),
    team_id: str(row.team_id),
    workflow_id: str(row.workflow_id),
    model_id: str(row.model_id),
    model_provider: str(row.model_provider),
    evaluated_component_name: str(row.evaluated_component_name),
    user_id: str(row.user_id),
    created_at: num(row.created_at),
    updated_at: numOrNull(row.updated_at),
  };
}

const scoped = (scope: EvalScope): SQL => (scope.userId === undefined ? sql`TRUE` : sql`user_id = ${scope.userId}`);

/** Eval runs on Postgres (`db.evals`, agno's `agno_eval_runs`), as agno's postgres.py reads and writes them. */
export class PostgresEvalRunStore implements EvalRunStore {
  constructor(private readonly d: EvalDeps) {}

  async create(run: EvalRunWrite): Promise<EvalRunRecord> {
    const r = pgSafe(evalRunRow(run, nowSeconds()));
    await this.d.ready();
    const rows = await this.d.exec(sql`
      INSERT INTO ${this.d.evals} (${COLUMNS}) VALUES (
        ${r.run_id}, ${r.eval_type}, ${pgJson(r.eval_data)}::jsonb, ${pgJson(r.eval_input)}::jsonb, ${r.name},
        ${r.agent_id}, ${r.team_id}, ${r.workflow_id}, ${r.model_id}, ${r.model_provider},
        ${r.evaluated_component_name}, ${r.user_id}, ${r.created_at}, ${r.updated_at})
      ON CONFLICT (run_id) DO NOTHING RETURNING ${COLUMNS}`);
    if (rows.length === 0) throw new ConflictError(`eval run ${r.run_id} already exists`);
    return toEvalRunRecord(rows[0]!);
  }

  async get(runId: string, scope: EvalScope = {}): Promise<EvalRunRecord | null> {
    await this.d.ready();
    const [row] = await this.d.exec(
      sql`SELECT ${COLUMNS} FROM ${this.d.evals} WHERE run_id = ${runId} AND ${scoped(scope)}`,
    );
    return row ? toEvalRunRecord(row) : null;
  }

  async list(query: EvalRunQuery = {}): Promise<Page<EvalRunRecord>> {
    checkEvalQuery(query);
    const page = resolvePage(query);
    const filters: SQL[] = [scoped(query)];
    if (query.agentId !== undefined) filters.push(sql`agent_id = ${query.agentId}`);
    if (query.teamId !== undefined) filters.push(sql`team_id = ${query.teamId}`);
    if (query.workflowId !== undefined) filters.push(sql`workflow_id = ${query.workflowId}`);
    if (query.modelId !== undefined) filters.push(sql`model_id = ${query.modelId}`);
    if (query.evalTypes?.length)
      filters.push(
        sql`eval_type IN (${sql.join(
          query.evalTypes.map((t) => sql`${t}`),
          sql`, `,
        )})`,
      );
    if (query.filterType !== undefined) filters.push(sql`${sql.raw(`${query.filterType}_id`)} IS NOT NULL`);
    const where = sql.join(filters, sql` AND `);
    // The column is one of EVAL_SORT_COLUMNS (checkEvalQuery), so it is safe to name raw; text sorts bytewise, as MemoryDb does.
    const column = query.sortBy ?? "created_at";
    const collate = column === "created_at" || column === "updated_at" ? "" : ' COLLATE "C"';
    const order = sql.raw(`${column}${collate} ${query.sortOrder === "asc" ? "ASC" : "DESC"}, run_id COLLATE "C" ASC`);
    await this.d.ready();
    const rows = await this.d.exec(sql`
      SELECT ${COLUMNS}, COUNT(*) OVER () AS total_count FROM ${this.d.evals} WHERE ${where}
      ORDER BY ${order} LIMIT ${page.limit} OFFSET ${page.offset}`);
    const total =
      rows.length > 0
        ? num(rows[0]!.total_count)
        : page.offset === 0
          ? 0
          : num((await this.d.exec(sql`SELECT COUNT(*) AS n FROM ${this.d.evals} WHERE ${where}`))[0]!.n);
    return pageOf(rows.map(toEvalRunRecord), total, page);
  }

  async rename(runId: string, name: string, scope: EvalScope = {}): Promise<EvalRunRecord | null> {
    checkEvalName(name);
    await this.d.ready();
    const [row] = await this.d.exec(sql`
      UPDATE ${this.d.evals} SET name = ${pgSafe(name)}, updated_at = ${nowSeconds()}
      WHERE run_id = ${runId} AND ${scoped(scope)} RETURNING ${COLUMNS}`);
    return row ? toEvalRunRecord(row) : null;
  }

  async delete(runIds: string[], scope: EvalScope = {}): Promise<number> {
    if (runIds.length === 0) return 0;
    await this.d.ready();
    const rows = await this.d.exec(sql`
      DELETE FROM ${this.d.evals}
      WHERE run_id IN (${sql.join(
        runIds.map((id) => sql`${id}`),
        sql`, `,
      )}) AND ${scoped(scope)} RETURNING run_id`);
    return rows.length;
  }
}

rethrowUnavailable(PostgresEvalRunStore);
