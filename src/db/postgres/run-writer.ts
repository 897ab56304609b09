import { sql, type SQL } from "drizzle-orm";
import { ConflictError, NotFoundError, StatusConflictError } from "../../errors.js";
import { runTypeOf } from "../session.js";
import type { SessionColumns } from "../session-columns.js";
import type { RunRecord, RunRow } from "../types.js";
import { idList } from "./id-list.js";
import { RUN_COLUMNS, toRunRow } from "./rows.js";
import type { Exec } from "./schema-state.js";
import { pgJson } from "../../json-limits.js";
import { nowSeconds as now } from "../../time.js";

/** The tables a run write touches: its session's row (the lock) and the runs table. */
export interface RunTables {
  sessions: SQL;
  runs: SQL;
  /** the two tables' qualified names: which run write templates are theirs */
  key: string;
}

/** The two tables alone, for the statements not kept as templates. */
export type TableRefs = Pick<RunTables, "sessions" | "runs">;

/** RunTables for the two tables' qualified names. */
export function runTables(sessions: string, runs: string): RunTables {
  return { sessions: sql.raw(sessions), runs: sql.raw(runs), key: `${sessions}|${runs}` };
}

/**
 * A session row's agno 2.x runs blob counted (0 when it holds none): before migration a new run's
 * run_index starts after them. Read from the row an upsert or bump returns.
 */
export const LEGACY_RUN_COUNT = sql.raw(
  `COALESCE(jsonb_array_length(CASE WHEN jsonb_typeof(runs::jsonb) = 'array' THEN runs::jsonb END), 0)`,
);

/**
 * Turns `synchronous_commit` off for the statement's own transaction (see UpsertRunOptions.deferFlush):
 * a volatile expression in a CTE the statement reads, so Postgres evaluates it once, before the
 * commit reads the setting; the setting ends with the transaction.
 */
const DEFER_FLUSH = sql.raw(`(SELECT set_config('synchronous_commit', 'off', true))`);

/** The run's columns as a write aliased `r` returns them (built once: every run write uses it). */
const RETURNING_RUN = sql.raw(
  RUN_COLUMNS.split(", ")
    .map((c) => `r.${c}`)
    .join(", "),
);

/**
 * Updates an existing run of this session, in one of the `expectStatus` states, whose session
 * holds the run's user; or, when the run is not stored yet (a run started in process, not
 * queued), inserts it as writeRunRow would. The session row is bumped (and so locked) before the
 * run row, the order writeRun locks them in, so the two paths never deadlock each other.
 *
 * The insert computes the next run_index from the statement's snapshot, so it only goes ahead if
 * the session row it locks is the version that snapshot saw (same `xmin`): every run insert bumps
 * its session row first, so a run another writer added meanwhile shows as a newer version, the
 * session is not bumped, nothing is inserted, and the caller takes writeRunRow's transaction.
 */
export async function updateRunRow(
  exec: Exec,
  t: RunTables,
  run: RunRecord,
  expectStatus: string[],
  deferFlush = false,
): Promise<RunRow | null> {
  const template = templates(t).update[deferFlush ? 1 : 0];
  const [row] = await exec(template, "run_update", runValues(run, now(), expectStatus));
  return row ? toRunRow(row) : null;
}

/**
 * A new session and its first run in one statement (one round trip, one commit): the session is
 * inserted (`ON CONFLICT DO NOTHING`), and the run from the row that returns, as that session's
 * first (run_index 0; the foreign key to the session is checked at the end of the statement,
 * when the session row is there). `sessionWritten` false: the session id was taken and nothing
 * was written. `row` null with the session written: the run was not inserted (its id was taken),
 * for the caller's usual write to sort out. `session` is validated, its JSON columns as the
 * session's writers store them (sessionColumns).
 */
export async function insertSessionWithRun(
  exec: Exec,
  t: RunTables,
  session: SessionColumns,
  run: RunRecord,
  deferFlush = false,
): Promise<{ sessionWritten: boolean; row: RunRow | null }> {
  const ts = now();
  const values = runValues(run, ts);
  for (const column of SESSION_COLUMNS) {
    const value = session[column];
    values[`s_${column}`] = SESSION_JSON.has(column) && value !== null ? pgJson(value) : value;
  }
  const [row] = await exec(templates(t).sessionWithRun[deferFlush ? 1 : 0], "session_with_run", values);
  return {
    sessionWritten: row?.session_written === true,
    row: row && row.run_id !== null && row.run_id !== undefined ? toRunRow(row) : null,
  };
}

/**
 * `updateRunRow` for many runs in one statement, each answered as it would be alone (null: not
 * updated). The sessions are locked in id order before their runs, so two batches, or a batch and
 * a single writer, never wait on each other in a cycle. The runs must be distinct: a row is
 * updated once per statement.
 */
export async function updateRunRows(
  exec: Exec,
  t: TableRefs,
  writes: Array<{ run: RunRecord; expectStatus: string[] }>,
  deferFlush = false,
): Promise<Array<RunRow | null>> {
  const ts = now();
  const x = pgJson(
    writes.map(({ run, expectStatus }, ord) => ({ ord, ...runColumns(run), run_data: run, expect: expectStatus })),
  );
  // The sessions by a literal list: joined with the recordset (estimated at 100 rows), the planner
  // scanned the whole sessions table, twice per batch. Joined with those few sessions, each run is
  // then read by its key.
  const sessionIds = idList([...new Set(writes.map((w) => w.run.session_id))]);
  const rows = await exec(sql`
    WITH x AS (SELECT * FROM jsonb_to_recordset(${x}::jsonb) AS x(ord int, run_id varchar, session_id varchar, run_type varchar, agent_id varchar,
        team_id varchar, workflow_id varchar, user_id varchar, parent_run_id varchar, status varchar, run_data jsonb, expect jsonb)),
    l AS (SELECT session_id${deferFlush ? sql`, ${DEFER_FLUSH} AS deferred` : sql``} FROM ${t.sessions} WHERE session_id IN (${sessionIds}) ORDER BY session_id FOR UPDATE),
    s AS (UPDATE ${t.sessions} SET updated_at = ${ts} WHERE session_id IN (${sessionIds}) AND session_id IN (SELECT session_id FROM l) RETURNING session_id, user_id),
    w AS (UPDATE ${t.runs} AS r SET run_type = x.run_type, agent_id = x.agent_id, team_id = x.team_id, workflow_id = x.workflow_id,
        user_id = COALESCE(x.user_id, s.user_id), parent_run_id = x.parent_run_id, status = x.status, run_data = x.run_data, updated_at = ${ts}
      FROM x JOIN s ON s.session_id = x.session_id
      WHERE r.run_id = x.run_id AND r.session_id = x.session_id AND (x.user_id IS NULL OR s.user_id IS NULL OR s.user_id = x.user_id)
        AND r.status IN (SELECT jsonb_array_elements_text(x.expect))
      RETURNING x.ord, ${RETURNING_RUN})
    SELECT * FROM w`);
  const out: Array<RunRow | null> = writes.map(() => null);
  for (const row of rows) out[Number(row.ord)] = toRunRow(row);
  return out;
}

/**
 * `updateRunRow` and, in the same statement, `alongside(ifRunWritten)`: another write (a job's
 * end) that takes effect only with the run's. Null when the run was not updated (nothing written).
 */
export async function updateRunRowWith(
  exec: Exec,
  t: TableRefs,
  run: RunRecord,
  expectStatus: string[],
  alongside: (ifRunWritten: SQL) => SQL,
): Promise<{ row: RunRow; alongsideWritten: boolean } | null> {
  const [row] = await exec(
    sql`WITH ${runUpdateCtes(t)}, also AS (${alongside(sql`EXISTS (SELECT 1 FROM w)`)})
    SELECT w.*, EXISTS (SELECT 1 FROM also) AS alongside_written FROM w`,
    undefined,
    runValues(run, now(), expectStatus),
  );
  return row ? { row: toRunRow(row), alongsideWritten: row.alongside_written === true } : null;
}

/** A run's own columns, beside its document, as both the batched and the templated writes set them. */
function runColumns(run: RunRecord) {
  return {
    run_id: run.run_id,
    session_id: run.session_id,
    run_type: runTypeOf(run),
    agent_id: run.agent_id ?? null,
    team_id: run.team_id ?? null,
    workflow_id: run.workflow_id ?? null,
    user_id: run.user_id ?? null,
    parent_run_id: run.parent_run_id ?? null,
    status: run.status ?? null,
  };
}

/** A placeholder of a run write's template, filled from runValues. */
const P = (name: string) => sql.placeholder(name);

/** What the run write templates' placeholders take: the run's columns at time `ts`, and the statuses it may move from. */
function runValues(run: RunRecord, ts: number, expectStatus?: string[]): Record<string, unknown> {
  return {
    ...runColumns(run),
    run_data: pgJson(run),
    created_at: run.created_at ?? ts,
    ts,
    ...(expectStatus && { expect: expectStatus }),
  };
}

/**
 * `s AS (the session's bump, where `sessionCondition` also holds), w AS (the run's update,
 * returning its row)`, with runValues' placeholders; `expect`, the statuses it may move from, is
 * one array parameter, so one template serves every list.
 */
function runUpdateCtes(t: TableRefs, sessionCondition = sql``): SQL {
  return sql`
    s AS (UPDATE ${t.sessions} SET updated_at = ${P("ts")} WHERE session_id = ${P("session_id")}${sessionCondition} RETURNING user_id),
    w AS (UPDATE ${t.runs} AS r SET run_type = ${P("run_type")}, agent_id = ${P("agent_id")}, team_id = ${P("team_id")},
      workflow_id = ${P("workflow_id")}, user_id = COALESCE(${P("user_id")}::varchar, s.user_id), parent_run_id = ${P("parent_run_id")},
      status = ${P("status")}, run_data = ${P("run_data")}::jsonb, updated_at = ${P("ts")}
    FROM s
    WHERE r.run_id = ${P("run_id")} AND r.session_id = ${P("session_id")}
      AND (${P("user_id")}::varchar IS NULL OR s.user_id IS NULL OR s.user_id = ${P("user_id")}::varchar)
      AND r.status = ANY(${P("expect")}::varchar[])
    RETURNING ${RETURNING_RUN})`;
}

/** The columns of a session row, in the order the session-with-run template inserts them. */
const SESSION_COLUMNS = [
  "session_id",
  "session_type",
  "agent_id",
  "team_id",
  "workflow_id",
  "user_id",
  "session_data",
  "agent_data",
  "team_data",
  "workflow_data",
  "metadata",
  "summary",
  "created_at",
  "updated_at",
] as const satisfies ReadonlyArray<keyof SessionColumns>;
const SESSION_JSON = new Set<string>([
  "session_data",
  "agent_data",
  "team_data",
  "workflow_data",
  "metadata",
  "summary",
]);

/** The run writes of `t`, [flushed, deferred]: built once per pair of tables, so each is compiled to its text once. */
interface RunTemplates {
  update: [SQL, SQL];
  sessionWithRun: [SQL, SQL];
}

const built = new Map<string, RunTemplates>();

function templates(t: RunTables): RunTemplates {
  let out = built.get(t.key);
  if (!out) built.set(t.key, (out = buildTemplates(t)));
  return out;
}

function buildTemplates(t: RunTables): RunTemplates {
  const user = sql`${P("user_id")}::varchar`;
  const runInsert = (source: SQL, runIndex: SQL, where: SQL) => sql`INSERT INTO ${t.runs} AS r (${sql.raw(RUN_COLUMNS)})
      SELECT ${P("run_id")}, ${P("session_id")}, ${P("run_type")}, ${P("agent_id")}, ${P("team_id")},
        ${P("workflow_id")}, COALESCE(${user}, s.user_id), ${P("parent_run_id")}, ${P("status")}, ${runIndex},
        ${P("run_data")}::jsonb, ${P("created_at")}, ${P("ts")}
      FROM ${source} WHERE ${where}
      ON CONFLICT (run_id) DO NOTHING
      RETURNING ${RETURNING_RUN}`;
  const ownerMatches = sql`(${user} IS NULL OR s.user_id IS NULL OR s.user_id = ${user})`;
  const update = (deferFlush: boolean) => sql`
    WITH a AS (SELECT NOT EXISTS (SELECT 1 FROM ${t.runs} WHERE run_id = ${P("run_id")}) AS absent,
      (SELECT xmin FROM ${t.sessions} WHERE session_id = ${P("session_id")}) AS seen${deferFlush ? sql`, ${DEFER_FLUSH} AS deferred` : sql``}),
    ${runUpdateCtes(t, sql` AND (NOT (SELECT absent FROM a) OR xmin = (SELECT seen FROM a))`)},
    ins AS (${runInsert(
      sql`s`,
      sql`(SELECT COALESCE(MAX(run_index) + 1, 0) FROM ${t.runs} WHERE session_id = ${P("session_id")})`,
      sql`(SELECT absent FROM a) AND ${ownerMatches}`,
    )})
    SELECT * FROM w UNION ALL SELECT * FROM ins`;
  const columns = sql.raw(SESSION_COLUMNS.join(", "));
  const sessionValues = sql.join(
    SESSION_COLUMNS.map((c) => (SESSION_JSON.has(c) ? sql`${P(`s_${c}`)}::jsonb` : P(`s_${c}`))),
    sql`, `,
  );
  const sessionWithRun = (deferFlush: boolean) => sql`
    WITH s AS (INSERT INTO ${t.sessions} (${columns}) VALUES (${sessionValues})
      ON CONFLICT (session_id) DO NOTHING RETURNING user_id),
    ins AS (${runInsert(sql`s`, sql`0`, ownerMatches)})
    SELECT EXISTS (SELECT 1 FROM s) AS session_written, ins.* FROM (SELECT ${deferFlush ? DEFER_FLUSH : sql`1`}) AS one LEFT JOIN ins ON true`;
  return { update: [update(false), update(true)], sessionWithRun: [sessionWithRun(false), sessionWithRun(true)] };
}

/**
 * One run, one row. The session row is locked first (its `updated_at` bump takes the lock),
 * so two writers of one session serialise and each new run gets its own next run_index;
 * the insert is a separate statement so it sees the other writer's committed row.
 */
export async function writeRunRow(
  exec: Exec,
  t: TableRefs,
  run: RunRecord,
  legacy: boolean,
  expectStatus?: string[],
): Promise<RunRow> {
  const ts = now();
  const [session] = await exec(
    sql`UPDATE ${t.sessions} SET updated_at = ${ts} WHERE session_id = ${run.session_id}
        RETURNING user_id${legacy ? sql`, ${LEGACY_RUN_COUNT} AS legacy_count` : sql``}`,
  );
  if (!session) throw new NotFoundError(`session ${run.session_id} not found: upsert the session before its runs`);
  const owner = (session.user_id as string | null) ?? null;
  if (run.user_id && owner && run.user_id !== owner) {
    throw new ConflictError(
      `run ${run.run_id} names user ${run.user_id} but session ${run.session_id} belongs to another user`,
    );
  }
  const legacyCount = Number(session.legacy_count ?? 0);
  const [row] = await exec(sql`
    INSERT INTO ${t.runs} AS r (${sql.raw(RUN_COLUMNS)})
    VALUES (${run.run_id}, ${run.session_id}, ${runTypeOf(run)}, ${run.agent_id ?? null}, ${run.team_id ?? null},
      ${run.workflow_id ?? null}, ${run.user_id ?? owner}, ${run.parent_run_id ?? null}, ${run.status ?? null},
      (SELECT GREATEST(COALESCE(MAX(run_index) + 1, 0), ${legacyCount}) FROM ${t.runs} WHERE session_id = ${run.session_id}),
      ${pgJson(run)}::jsonb, ${run.created_at ?? ts}, ${ts})
    ON CONFLICT (run_id) DO UPDATE SET run_type = EXCLUDED.run_type, agent_id = EXCLUDED.agent_id, team_id = EXCLUDED.team_id,
      workflow_id = EXCLUDED.workflow_id, user_id = EXCLUDED.user_id, parent_run_id = EXCLUDED.parent_run_id,
      status = EXCLUDED.status, run_data = EXCLUDED.run_data, updated_at = EXCLUDED.updated_at
    WHERE r.session_id = EXCLUDED.session_id
      ${
        expectStatus
          ? sql`AND r.status IN (${sql.join(
              expectStatus.map((st) => sql`${st}`),
              sql`, `,
            )})`
          : sql``
      }
    RETURNING ${RETURNING_RUN}`);
  if (row) return toRunRow(row);
  const [existing] = await exec(sql`SELECT session_id, status FROM ${t.runs} WHERE run_id = ${run.run_id}`);
  if (existing && existing.session_id !== run.session_id)
    throw new ConflictError(`run ${run.run_id} already belongs to another session`);
  const actual = (existing?.status as string | null) ?? null;
  throw new StatusConflictError(
    `run ${run.run_id} is ${actual ?? "without status"}, not ${expectStatus?.join(" or ")}`,
    actual,
  );
}
