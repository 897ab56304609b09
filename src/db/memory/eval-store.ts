import { ConflictError } from "../../errors.js";
import { checkEvalName, checkEvalQuery, evalRunRow } from "../eval-rows.js";
import { pageOf, resolvePage } from "../pagination.js";
import type {
  EvalRunQuery,
  EvalRunRecord,
  EvalRunStore,
  EvalRunWrite,
  EvalScope,
  EvalSortColumn,
} from "../ports/eval-store.js";
import type { Page } from "../types.js";
import { compareIds, copy, now, stored, type MemoryTables } from "./tables.js";

const inScope = (row: EvalRunRecord, scope: EvalScope) => scope.userId === undefined || row.user_id === scope.userId;

/** Postgres's order for one column: nulls last ascending and first descending, ties by run_id. */
function compareBy(column: EvalSortColumn, order: "asc" | "desc") {
  return (a: EvalRunRecord, b: EvalRunRecord): number => {
    const x = a[column];
    const y = b[column];
    let c: number;
    if (x === y) c = 0;
    else if (x === null) c = 1;
    else if (y === null) c = -1;
    else c = typeof x === "number" && typeof y === "number" ? x - y : compareIds(String(x), String(y));
    return (order === "asc" ? c : -c) || compareIds(a.run_id, b.run_id);
  };
}

/** Eval runs in memory (`db.evals`), with the Postgres adapter's rules. */
export class MemoryEvalRunStore implements EvalRunStore {
  constructor(private readonly t: MemoryTables) {}

  async create(run: EvalRunWrite): Promise<EvalRunRecord> {
    const row = stored(evalRunRow(run, now()));
    if (this.t.evalRuns.has(row.run_id)) throw new ConflictError(`eval run ${row.run_id} already exists`);
    this.t.evalRuns.set(row.run_id, row);
    return copy(row);
  }

  async get(runId: string, scope: EvalScope = {}): Promise<EvalRunRecord | null> {
    const row = this.t.evalRuns.get(runId);
    return row && inScope(row, scope) ? copy(row) : null;
  }

  async list(query: EvalRunQuery = {}): Promise<Page<EvalRunRecord>> {
    checkEvalQuery(query);
    const page = resolvePage(query);
    const rows = [...this.t.evalRuns.values()]
      .filter(
        (r) =>
          inScope(r, query) &&
          (query.agentId === undefined || r.agent_id === query.agentId) &&
          (query.teamId === undefined || r.team_id === query.teamId) &&
          (query.workflowId === undefined || r.workflow_id === query.workflowId) &&
          (query.modelId === undefined || r.model_id === query.modelId) &&
          (!query.evalTypes?.length || query.evalTypes.includes(r.eval_type)) &&
          (query.filterType === undefined || r[`${query.filterType}_id`] !== null),
      )
      .sort(compareBy(query.sortBy ?? "created_at", query.sortOrder ?? "desc"));
    return pageOf(copy(rows.slice(page.offset, page.offset + page.limit)), rows.length, page);
  }

  async rename(runId: string, name: string, scope: EvalScope = {}): Promise<EvalRunRecord | null> {
    checkEvalName(name);
    const row = this.t.evalRuns.get(runId);
    if (!row || !inScope(row, scope)) return null;
    const next = stored({ ...row, name, updated_at: now() });
    this.t.evalRuns.set(runId, next);
    return copy(next);
  }

  async delete(runIds: string[], scope: EvalScope = {}): Promise<number> {
    let n = 0;
    for (const id of new Set(runIds)) {
      const row = this.t.evalRuns.get(id);
      if (row && inScope(row, scope)) {
        this.t.evalRuns.delete(id);
        n++;
      }
    }
    return n;
  }
}
