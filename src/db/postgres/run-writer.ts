import { sql, type SQL } from "drizzle-orm";
import { ConflictError, NotFoundError, StatusConflictError } from "../../errors.js";
import { runTypeOf } from "../session.js";
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
  const ts = now();
  const user = sql`${run.user_id ?? null}::varchar`;
  const [row] = await exec(
    sql`
    WITH a AS (SELECT NOT EXISTS (SELECT 1 FROM ${t.runs} WHERE run_id = ${run.run_id}) AS absent,
      (SELECT xmin FROM ${t.sessions} WHERE session_id = ${run.session_id}) AS seen${deferFlush ? sql`, ${DEFER_FLUSH} AS deferred` : sql``}),
    ${runUpdateCtes(t, run, expectStatus, ts, sql` AND (NOT (SELECT absent FROM a) OR xmin = (SELECT seen FROM a))`)},
    ins AS (INSERT INTO ${t.runs} AS r (${sql.raw(RUN_COLUMNS)})
      SELECT ${run.run_id}, ${run.session_id}, ${runTypeOf(run)}, ${run.agent_id ?? null}, ${run.team_id ?? null},
        ${run.workflow_id ?? null}, COALESCE(${user}, s.user_id), ${run.parent_run_id ?? null}, ${run.status ?? null},
        (SELECT COALESCE(MAX(run_index) + 1, 0) FROM ${t.runs} WHERE session_id = ${run.session_id}),
        ${pgJson(run)}::jsonb, ${run.created_at ?? ts}, ${ts}
      FROM s WHERE (SELECT absent FROM a) AND (${user} IS NULL OR s.user_id IS NULL OR s.user_id = ${user})
      ON CONFLICT (run_id) DO NOTHING
      RETURNING ${RETURNING_RUN})
    SELECT * FROM w UNION ALL SELECT * FROM ins`,
    "run_update",
  );
  return row ? toRunRow(row) : null;
}

/**
 * A new session and its first run in one statement (one round trip, one commit): `sessionInsert`
 * is the session's `INSERT … ON CONFLICT DO NOTHING RETURNING user_id`, and the run is inserted
 * from the row it returns, as that session's first (run_index 0; the foreign key to the session
 * is checked at the end of the statement, when the session row is there). `sessionWritten`
 * false: the session id was taken and nothing was written. `row` null with the session written:
 * the run was not inserted (its id was taken), for the caller's usual write to sort out.
 */
export async function insertSessionWithRun(
  exec: Exec,
  t: RunTables,
  sessionInsert: SQL,
  run: RunRecord,
  deferFlush = false,
): Promise<{ sessionWritten: boolean; row: RunRow | null }> {
  const ts = now();
  const user = sql`${run.user_id ?? null}::varchar`;
  const [row] = await exec(
    sql`
    WITH s AS (${sessionInsert}),
    ins AS (INSERT INTO ${t.runs} AS r (${sql.raw(RUN_COLUMNS)})
      SELECT ${run.run_id}, ${run.session_id}, ${runTypeOf(run)}, ${run.agent_id ?? null}, ${run.team_id ?? null},
        ${run.workflow_id ?? null}, COALESCE(${user}, s.user_id), ${run.parent_run_id ?? null}, ${run.status ?? null}, 0,
        ${pgJson(run)}::jsonb, ${run.created_at ?? ts}, ${ts}
      FROM s WHERE ${user} IS NULL OR s.user_id IS NULL OR s.user_id = ${user}
      ON CONFLICT (run_id) DO NOTHING
      RETURNING ${RETURNING_RUN})
    SELECT EXISTS (SELECT 1 FROM s) AS session_written, ins.* FROM (SELECT ${deferFlush ? DEFER_FLUSH : sql`1`}) AS one LEFT JOIN ins ON true`,
    "session_with_run",
  );
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
  t: RunTables,
  writes: Array<{ run: RunRecord; expectStatus: string[] }>,
  deferFlush = false,
): Promise<Array<RunRow | null>> {
  const ts = now();
  const x = pgJson(
    writes.map(({ run, expectStatus }, ord) => ({
      ord,
      run_id: run.run_id,
      session_id: run.session_id,
      run_type: runTypeOf(run),
      agent_id: run.agent_id ?? null,
      team_id: run.team_id ?? null,
      workflow_id: run.workflow_id ?? null,
      user_id: run.user_id ?? null,
      parent_run_id: run.parent_run_id ?? null,
      status: run.status ?? null,
      run_data: run,
      expect: expectStatus,
    })),
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
  t: RunTables,
  run: RunRecord,
  expectStatus: string[],
  alongside: (ifRunWritten: SQL) => SQL,
): Promise<{ row: RunRow; alongsideWritten: boolean } | null> {
  const [row] = await exec(sql`${runUpdate(t, run, expectStatus)}, also AS (${alongside(sql`EXISTS (SELECT 1 FROM w)`)})
    SELECT w.*, EXISTS (SELECT 1 FROM also) AS alongside_written FROM w`);
  return row ? { row: toRunRow(row), alongsideWritten: row.alongside_written === true } : null;
}

/** `WITH s AS (the session's bump), w AS (the run's update, returning its row)`. */
function runUpdate(t: RunTables, run: RunRecord, expectStatus: string[]): SQL {
  return sql`WITH ${runUpdateCtes(t, run, expectStatus, now())}`;
}

/** `s AS (the session's bump, where `sessionCondition` also holds), w AS (the run's update, returning its row)`. */
function runUpdateCtes(
  t: RunTables,
  run: RunRecord,
  expectStatus: string[],
  ts: number,
  sessionCondition = sql``,
): SQL {
  return sql`
    s AS (UPDATE ${t.sessions} SET updated_at = ${ts} WHERE session_id = ${run.session_id}${sessionCondition} RETURNING user_id),
    w AS (UPDATE ${t.runs} AS r SET run_type = ${runTypeOf(run)}, agent_id = ${run.agent_id ?? null}, team_id = ${run.team_id ?? null},
      workflow_id = ${run.workflow_id ?? null}, user_id = COALESCE(${run.user_id ?? null}::varchar, s.user_id), parent_run_id = ${run.parent_run_id ?? null},
      status = ${run.status ?? null}, run_data = ${pgJson(run)}::jsonb, updated_at = ${ts}
    FROM s
    WHERE r.run_id = ${run.run_id} AND r.session_id = ${run.session_id}
      AND (${run.user_id ?? null}::varchar IS NULL OR s.user_id IS NULL OR s.user_id = ${run.user_id ?? null}::varchar)
      AND r.status IN (${sql.join(
        expectStatus.map((st) => sql`${st}`),
        sql`, `,
      )})
    RETURNING ${RETURNING_RUN})`;
}

/**
 * One run, one row. The session row is locked first (its `updated_at` bump takes the lock),
 * so two writers of one session serialise and each new run gets its own next run_index;
 * the insert is a separate statement so it sees the other writer's committed row.
 */
export async function writeRunRow(
  exec: Exec,
  t: RunTables,
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
