import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConflictError, NotFoundError, SchemaMismatchError, StatusConflictError, ValidationError } from "../../src/errors.js";
import { MAX_PAGE_LIMIT } from "../../src/db/pagination.js";
import type { GetSessionOptions, RunRecord, RunRow } from "../../src/db/types.js";
import { PostgresDb } from "../../src/db/postgres/postgres-db.js";
import { dbTargets, openTestDb, type TestDb } from "../support/db-targets.js";

/** The Db port's contract, run against every Postgres the machine offers (SPEC R1-R4). */
describe.each(dbTargets())("Db contract on $name", (target) => {
  let t: TestDb;
  beforeAll(async () => {
    t = openTestDb(target);
    expect(await t.db.init()).toBe("current");
  });
  afterAll(() => t.close());

  const session = (id: string, extra: Record<string, unknown> = {}) =>
    t.db.upsertSession({ session_id: id, session_type: "agent", agent_id: "assistant", user_id: "alice", ...extra });
  const run = (id: string, sessionId: string, extra: Partial<RunRecord> = {}): RunRecord => ({
    run_id: id,
    session_id: sessionId,
    agent_id: "assistant",
    status: "COMPLETED",
    messages: [
      { role: "system", content: "be brief" },
      { role: "user", content: `question ${id}` },
      { role: "assistant", content: `answer ${id}` },
    ],
    ...extra,
  });

  it("creates the 3.0 tables on a fresh database, without a runs blob on sessions", async () => {
    const cols = await t.query<{ table_name: string; column_name: string }>(
      `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = $1`,
      [t.schema],
    );
    const of = (table: string) => cols.filter((c) => c.table_name === table).map((c) => c.column_name).sort();
    expect(of("agno_sessions")).not.toContain("runs");
    expect(of("agno_runs")).toEqual(
      ["agent_id", "created_at", "parent_run_id", "run_data", "run_id", "run_index", "run_type", "session_id", "status", "team_id", "updated_at", "user_id", "workflow_id"],
    );
    expect(of("agno_jobs")).toContain("idempotency_key");
    expect(of("agno_tool_results")).toContain("expires_at");
    const versions = await t.query<{ table_name: string; version: string }>(`SELECT table_name, version FROM "${t.schema}".agno_schema_versions ORDER BY 1`);
    expect(versions.map((v) => `${v.table_name}=${v.version}`)).toEqual([
      "agno_jobs=3.0.2", "agno_memories=3.0.2", "agno_run_events=3.0.2", "agno_runs=3.0.2", "agno_schedule_runs=3.0.2", "agno_schedules=3.0.2",
      "agno_schema_versions=3.0.2", "agno_sessions=3.0.2", "agno_tool_results=3.0.2",
    ]);
    expect(await t.db.schemaVersion()).toBe("3.0.2");
  });

  it("stores each run as one row and joins them back into the session in order", async () => {
    await session("s-join");
    for (let i = 0; i < 3; i++) await t.db.upsertRun(run(`join-${i}`, "s-join"));
    const rows = await t.query<{ run_id: string; run_index: string; run_type: string; user_id: string }>(
      `SELECT run_id, run_index, run_type, user_id FROM "${t.schema}".agno_runs WHERE session_id = 's-join' ORDER BY run_index`,
    );
    expect(rows.map((r) => [r.run_id, Number(r.run_index), r.run_type, r.user_id])).toEqual([
      ["join-0", 0, "agent", "alice"],
      ["join-1", 1, "agent", "alice"],
      ["join-2", 2, "agent", "alice"],
    ]);
    const s = await t.db.getSession("s-join");
    expect(s!.runs.map((r) => r.run_id)).toEqual(["join-0", "join-1", "join-2"]);
    const history = s!.getMessages();
    expect(history.filter((m) => m.role === "system")).toHaveLength(1);
    expect(s!.getChatHistory().map((m) => m.content)).toEqual([
      "question join-0", "answer join-0", "question join-1", "answer join-1", "question join-2", "answer join-2",
    ]);
    expect(s!.getMessages({ lastNRuns: 1, skipRoles: ["system"] }).map((m) => m.content)).toEqual(["question join-2", "answer join-2"]);
  });

  it("upserting a run rewrites that run's row only and keeps its run_index", async () => {
    await session("s-o1");
    for (let i = 0; i < 5; i++) await t.db.upsertRun(run(`o1-${i}`, "s-o1", { status: "RUNNING" }));
    const xmin = () =>
      t.query<{ run_id: string; x: string }>(`SELECT run_id, xmin::text AS x FROM "${t.schema}".agno_runs WHERE session_id = 's-o1' ORDER BY run_id`);
    const before = await xmin();
    const updated = await t.db.upsertRun(run("o1-2", "s-o1", { status: "COMPLETED", content: "done" }));
    expect(updated.run_index).toBe(2);
    expect(updated.status).toBe("COMPLETED");
    const after = await xmin();
    const changed = after.filter((r, i) => r.x !== before[i]!.x).map((r) => r.run_id);
    expect(changed).toEqual(["o1-2"]);
    expect((await t.db.getRun("o1-2"))!.run_data.content).toBe("done");
  });

  it("two writers upserting runs of one session at once lose nothing", async () => {
    await session("s-race");
    const writer = (w: string) => (async () => {
      for (let i = 0; i < 15; i++) await t.db.upsertRun(run(`race-${w}-${i}`, "s-race"));
    })();
    await Promise.all([writer("a"), writer("b"), writer("c")]);
    const rows = await t.query<{ run_index: string }>(`SELECT run_index FROM "${t.schema}".agno_runs WHERE session_id = 's-race' ORDER BY run_index`);
    expect(rows.map((r) => Number(r.run_index))).toEqual(Array.from({ length: 45 }, (_, i) => i));
    expect((await t.db.getSession("s-race"))!.runs).toHaveLength(45);
  });

  it("runsLimit joins the last N top-level runs that can feed history; includeRuns false joins none", async () => {
    await session("s-limit");
    await t.db.upsertRun(run("l-0", "s-limit"));
    await t.db.upsertRun(run("l-1", "s-limit"));
    await t.db.upsertRun(run("l-1-member", "s-limit", { parent_run_id: "l-1" }));
    await t.db.upsertRun(run("l-2", "s-limit", { status: "ERROR" }));
    await t.db.upsertRun(run("l-3", "s-limit"));
    expect((await t.db.getSession("s-limit", { runsLimit: 2 }))!.runs.map((r) => r.run_id)).toEqual(["l-1", "l-3"]);
    expect((await t.db.getSession("s-limit"))!.runs).toHaveLength(5);
    expect((await t.db.getSession("s-limit", { includeRuns: false }))!.record.runs).toBeUndefined();
  });

  it("getSessionWithRun reads what getSession and getRun would, together", async () => {
    await session("s-with", { session_data: { session_state: { n: 1 } } });
    await t.db.upsertRun(run("w-0", "s-with"));
    await t.db.upsertRun(run("w-1", "s-with", { status: "ERROR" }));
    await t.db.upsertRun(run("w-2", "s-with", { status: "PENDING" }));
    for (const opts of [{ runsLimit: 2 }, {}, { includeRuns: false }, { userId: "alice" }]) {
      const both = await t.db.getSessionWithRun("s-with", "w-2", opts);
      expect(both.session!.record).toEqual((await t.db.getSession("s-with", opts))!.record);
      expect(both.run).toEqual(await t.db.getRun("w-2"));
    }
    expect((await t.db.getSessionWithRun("s-with", "w-2", { runsLimit: 2 })).session!.runs.map((r) => r.run_id)).toEqual(["w-0", "w-2"]);
    expect(await t.db.getSessionWithRun("s-with", "w-absent")).toMatchObject({ session: { record: { session_id: "s-with" } }, run: null });
    expect(await t.db.getSessionWithRun("s-with", "w-0", { userId: "bob" })).toMatchObject({ session: null, run: { run_id: "w-0" } });
    expect(await t.db.getSessionWithRun("s-absent", "w-absent")).toEqual({ session: null, run: null });
    await expect(t.db.getSessionWithRun("s-with", "w-0", { runsLimit: -1 })).rejects.toThrow(ValidationError);
    await expect(t.db.getSessionWithRun("s-with", "")).rejects.toThrow(ValidationError);
  });

  it("a pool given as a function is made on the first query, once: an adapter that never queries opens none", async () => {
    let made = 0;
    const db = new PostgresDb({ pool: () => (made++, t.pool), schema: t.schema });
    expect(made).toBe(0);
    expect(db.jobs).toBeDefined();
    expect(made).toBe(0);
    await session("s-lazy");
    expect((await db.getSession("s-lazy"))!.record.session_id).toBe("s-lazy");
    await db.getRuns({ limit: 1 });
    expect(made).toBe(1);
  });

  it("getSessionWithRun calls made together (one batch per shape) answer each as it would alone", async () => {
    // A schema of its own: the listing tests count what the others wrote.
    const own = openTestDb(target);
    const db = own.db;
    await db.init();
    await db.upsertSession({ session_id: "s-bat-a", session_type: "agent", agent_id: "assistant", user_id: "carol" });
    await db.upsertSession({ session_id: "s-bat-b", session_type: "agent", agent_id: "assistant", user_id: "dave" });
    for (const [i, id] of ["b-0", "b-1", "b-2"].entries()) await db.upsertRun(run(id, "s-bat-a", { status: i === 1 ? "ERROR" : "COMPLETED" }));
    await db.upsertRun(run("b-3", "s-bat-b"));
    const calls: Array<[string, string, GetSessionOptions]> = [
      ["s-bat-a", "b-2", { runsLimit: 2 }],
      ["s-bat-b", "b-3", { runsLimit: 2 }],
      ["s-bat-a", "b-0", { runsLimit: 2 }], // the same session twice in one batch
      ["s-bat-a", "b-absent", { runsLimit: 2 }],
      ["s-absent", "b-3", { runsLimit: 2 }],
      ["s-bat-a", "b-1", {}],
      ["s-bat-b", "b-3", {}],
      ["s-bat-a", "b-0", { includeRuns: false }],
      ["s-bat-a", "b-0", { runsLimit: 0 }],
      ["s-bat-a", "b-0", { userId: "carol" }],
      ["s-bat-b", "b-3", { userId: "carol" }], // another user's session: none
      ["s-bat-a", "b-0", { userId: "dave", includeShared: true }],
    ];
    const together = await Promise.all(calls.map(([sid, rid, opts]) => db.getSessionWithRun(sid, rid, opts)));
    for (const [i, [sid, rid, opts]] of calls.entries()) {
      expect(together[i], JSON.stringify(calls[i])).toEqual(await db.getSessionWithRun(sid, rid, opts));
      expect(together[i]!.session?.record ?? null).toEqual((await db.getSession(sid, opts))?.record ?? null);
      expect(together[i]!.run).toEqual(await db.getRun(rid));
    }
    expect(together[0]!.session!.runs.map((r) => r.run_id)).toEqual(["b-0", "b-2"]);
    expect(together[10]!.session).toBeNull();
    // A bad call in the same turn fails alone.
    const mixed = await Promise.allSettled([db.getSessionWithRun("s-bat-a", "b-0", { runsLimit: 2 }), db.getSessionWithRun("s-bat-a", "", { runsLimit: 2 })]);
    expect(mixed.map((m) => m.status)).toEqual(["fulfilled", "rejected"]);
    await own.close();
  });

  it("upsertRun calls with expectStatus made together (one statement) answer each as it would alone", async () => {
    const own = openTestDb(target);
    const db = own.db;
    try {
      await db.init();
      await db.upsertSession({ session_id: "s-up-a", session_type: "agent", agent_id: "assistant", user_id: "erin" });
      await db.upsertSession({ session_id: "s-up-b", session_type: "agent", agent_id: "assistant", user_id: "finn" });
      for (const id of ["u-0", "u-1", "u-2"]) await db.upsertRun(run(id, "s-up-a", { status: "PENDING" }));
      await db.upsertRun(run("u-3", "s-up-b", { status: "COMPLETED" }));
      await db.upsertRun(run("u-4", "s-up-b", { status: "PENDING" }));
      const outcomes = await Promise.allSettled([
        db.upsertRun(run("u-0", "s-up-a", { status: "RUNNING", content: "zero" }), { expectStatus: ["PENDING"] }),
        db.upsertRun(run("u-1", "s-up-a", { status: "RUNNING", content: "one" }), { expectStatus: ["PENDING", "RUNNING"] }), // same session, one batch
        db.upsertRun(run("u-3", "s-up-b", { status: "RUNNING" }), { expectStatus: ["PENDING"] }), // COMPLETED: 409, nothing written
        db.upsertRun(run("u-new", "s-up-b", { status: "RUNNING" }), { expectStatus: ["PENDING"] }), // not there yet: inserted, as alone
        db.upsertRun(run("u-4", "s-up-b", { status: "RUNNING", user_id: "erin" }), { expectStatus: ["PENDING"] }), // another user's session: 409
        db.upsertRun(run("u-2", "s-up-a", { status: "RUNNING", content: "first" }), { expectStatus: ["PENDING"] }),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled", "rejected", "fulfilled"]);
      // The same run written twice in one turn: one after the other, in call order.
      await Promise.all([
        db.upsertRun(run("u-2", "s-up-a", { status: "COMPLETED", content: "second" }), { expectStatus: ["RUNNING"] }),
        db.upsertRun(run("u-2", "s-up-a", { status: "ERROR", content: "third" }), { expectStatus: ["COMPLETED"] }),
      ]);
      expect((outcomes[2] as PromiseRejectedResult).reason).toBeInstanceOf(StatusConflictError);
      expect((outcomes[4] as PromiseRejectedResult).reason).toBeInstanceOf(ConflictError);
      const written = (outcomes[0] as PromiseFulfilledResult<RunRow>).value;
      expect(written).toEqual(await db.getRun("u-0"));
      expect(written).toMatchObject({ status: "RUNNING", user_id: "erin", run_data: { content: "zero" } });
      expect(await db.getRun("u-1")).toMatchObject({ status: "RUNNING", run_data: { content: "one" } });
      expect(await db.getRun("u-3")).toMatchObject({ status: "COMPLETED" });
      expect(await db.getRun("u-new")).toMatchObject({ status: "RUNNING", user_id: "finn" });
      expect(await db.getRun("u-4")).toMatchObject({ status: "PENDING" });
      expect(await db.getRun("u-2")).toMatchObject({ status: "ERROR", run_data: { content: "third" } });
    } finally {
      await own.close();
    }
  });

  it("lists runs with filters, sorting and strict pagination", async () => {
    await session("s-list-a");
    await t.db.upsertSession({ session_id: "s-list-b", session_type: "team", team_id: "crew", user_id: "bob" });
    for (let i = 0; i < 7; i++) {
      await t.db.upsertRun(run(`la-${i}`, "s-list-a", { status: i % 2 ? "ERROR" : "COMPLETED", created_at: 1_000 + i }));
    }
    await t.db.upsertRun({ run_id: "lb-0", session_id: "s-list-b", team_id: "crew", status: "COMPLETED", created_at: 2_000 });
    const page2 = await t.db.getRuns({ sessionId: "s-list-a", limit: 3, page: 2, sortOrder: "asc" });
    expect(page2.data.map((r) => r.run_id)).toEqual(["la-3", "la-4", "la-5"]);
    expect(page2).toMatchObject({ page: 2, limit: 3, total_count: 7, total_pages: 3 });
    const errors = await t.db.getRuns({ sessionId: "s-list-a", status: "ERROR" });
    expect(errors.data.map((r) => r.run_id).sort()).toEqual(["la-1", "la-3", "la-5"]);
    const bob = await t.db.getRuns({ userId: "bob" });
    expect(bob.data.map((r) => [r.run_id, r.run_type])).toEqual([["lb-0", "team"]]);
    const newest = await t.db.getRuns({ sessionId: "s-list-a", agentId: "assistant", sortBy: "created_at", sortOrder: "desc", limit: 1 });
    expect(newest.data[0]!.run_id).toBe("la-6");
  });

  it("refuses page without limit, page < 1 and oversize limits", async () => {
    await expect(t.db.getRuns({ page: 2 })).rejects.toMatchObject({ name: "ValidationError", field: "page" });
    await expect(t.db.getRuns({ limit: 10, page: 0 })).rejects.toThrow(ValidationError);
    await expect(t.db.getRuns({ limit: MAX_PAGE_LIMIT + 1 })).rejects.toMatchObject({ field: "limit" });
    await expect(t.db.getSessions({ limit: 1.5 })).rejects.toThrow(ValidationError);
    await expect(t.db.getSessions({ page: 1 })).rejects.toThrow(/page needs limit/);
    await expect(t.db.getRuns({ sortOrder: "sideways" as never })).rejects.toThrow(ValidationError);
  });

  it("lists sessions without their runs, filtered and paged", async () => {
    for (let i = 0; i < 4; i++) {
      await t.db.upsertSession({ session_id: `ls-${i}`, session_type: "agent", agent_id: "lister", user_id: "carol", created_at: 5_000 + i });
      await t.db.upsertRun(run(`ls-run-${i}`, `ls-${i}`, { agent_id: "lister" }));
    }
    await t.db.renameSession("ls-2", "Quarterly report");
    const page = await t.db.getSessions({ userId: "carol", limit: 3, sortOrder: "asc" });
    expect(page.data.map((s) => s.sessionId)).toEqual(["ls-0", "ls-1", "ls-2"]);
    expect(page.total_count).toBe(4);
    expect(page.data.every((s) => s.record.runs === undefined)).toBe(true);
    const named = await t.db.getSessions({ sessionName: "quarterly" });
    expect(named.data.map((s) => s.sessionId)).toEqual(["ls-2"]);
    expect(named.data[0]!.record.session_data?.session_name).toBe("Quarterly report");
    const withRuns = await t.db.getSessions({ componentId: "lister", includeRuns: true, limit: 10 });
    expect(withRuns.data.map((s) => s.runs.length)).toEqual([1, 1, 1, 1]);
  });

  it("rejects bad input with typed errors and writes nothing", async () => {
    await expect(t.db.upsertRun(run("orphan", "no-such-session"))).rejects.toThrow(NotFoundError);
    expect(await t.db.getRun("orphan")).toBeNull();
    await expect(t.db.upsertRun({ run_id: 42, session_id: "s-join" } as never)).rejects.toMatchObject({ name: "ValidationError", field: "run_id" });
    await expect(t.db.upsertRun(run("bad-status", "s-join", { status: "DONE" }))).rejects.toMatchObject({ field: "status" });
    await expect(t.db.upsertRun(run("bad-ts", "s-join", { created_at: "yesterday" as never }))).rejects.toMatchObject({ field: "created_at" });
    await expect(t.db.upsertSession({ session_id: "x", session_type: "robot" } as never)).rejects.toMatchObject({ field: "session_type" });
    await expect(t.db.upsertSession({ session_id: "y".repeat(300), session_type: "agent" })).rejects.toMatchObject({ field: "session_id" });
    expect(await t.db.getSession("x")).toBeNull();
    // A run id cannot move to another session, and a session never changes owner through an upsert.
    await session("s-other");
    await expect(t.db.upsertRun(run("join-0", "s-other"))).rejects.toThrow(ConflictError);
    expect((await t.db.getRun("join-0"))!.session_id).toBe("s-join");
    await expect(session("s-join", { user_id: "mallory" })).rejects.toThrow(ConflictError);
    expect((await t.db.getSession("s-join"))!.record.user_id).toBe("alice");
    // A session with runs in the same upsert: all or nothing.
    await expect(
      t.db.upsertSession({ session_id: "s-atomic", session_type: "agent", runs: [run("atomic-0", "s-atomic"), run("join-1", "s-atomic")] }),
    ).rejects.toThrow(ConflictError);
    expect(await t.db.getSession("s-atomic")).toBeNull();
    expect(await t.db.getRun("atomic-0")).toBeNull();
  });

  it("deletes runs and sessions all or nothing, scoped by user", async () => {
    await session("s-del");
    for (let i = 0; i < 3; i++) await t.db.upsertRun(run(`del-${i}`, "s-del"));
    await expect(t.db.deleteRuns(["del-0", "nope"])).rejects.toThrow(/nope/);
    expect(await t.db.getRun("del-0")).not.toBeNull();
    await expect(t.db.deleteRun("del-0", { userId: "bob" })).rejects.toThrow(NotFoundError);
    expect(await t.db.deleteRuns(["del-0", "del-1"], { userId: "alice" })).toBe(2);
    expect((await t.db.getSession("s-del"))!.runs.map((r) => r.run_id)).toEqual(["del-2"]);
    expect(await t.db.getSession("s-del", { userId: "bob" })).toBeNull();
    await expect(t.db.deleteSession("s-del", { userId: "bob" })).rejects.toThrow(NotFoundError);
    await t.db.deleteSession("s-del");
    expect(await t.db.getRun("del-2")).toBeNull(); // ON DELETE CASCADE
    await expect(t.db.deleteSession("s-del")).rejects.toThrow(NotFoundError);
  });

  it("keeps a run's event log by position: ordered reads, no overwrites, gone with its run, pruned whole", async () => {
    await session("ev-s");
    await t.db.upsertRun(run("ev-r", "ev-s", { status: "RUNNING" }));
    expect(await t.db.lastRunEventIndex("ev-r")).toBe(-1);
    const ev = (n: number) => ({ event: n === 4 ? "RunCompleted" : "RunContent", run_id: "ev-r", content: `c${n}`, note: "日本語 🎉" });
    await t.db.appendRunEvents("ev-r", 0, [ev(0), ev(1)]);
    await t.db.appendRunEvents("ev-r", 2, [ev(2), ev(3), ev(4)]);
    expect(await t.db.lastRunEventIndex("ev-r")).toBe(4);
    expect(await t.db.getRunEvents("ev-r", { afterIndex: -1 })).toEqual([0, 1, 2, 3, 4].map((i) => ({ index: i, event: ev(i) })));
    expect((await t.db.getRunEvents("ev-r", { afterIndex: 1, limit: 2 })).map((e) => e.index)).toEqual([2, 3]);
    expect(await t.db.getRunEvents("ev-r", { afterIndex: 4 })).toEqual([]);
    await expect(t.db.appendRunEvents("ev-r", 4, [ev(9)])).rejects.toThrow(ConflictError);
    expect((await t.db.getRunEvents("ev-r", { afterIndex: 3 }))[0]!.event.content).toBe("c4"); // the refused write changed nothing
    await expect(t.db.appendRunEvents("ev-unknown-run", 0, [ev(0)])).rejects.toThrow(ConflictError);
    await expect(t.db.getRunEvents("ev-r", { afterIndex: -2 })).rejects.toThrow(ValidationError);
    await expect(t.db.appendRunEvents("ev-r", -1, [ev(0)])).rejects.toThrow(ValidationError);

    // Pruning takes whole logs whose last event is older than the cut-off, never a log's head only.
    await t.db.upsertRun(run("ev-old", "ev-s"));
    await t.db.appendRunEvents("ev-old", 0, [ev(0), ev(1)]);
    await t.query(`UPDATE "${t.schema}".agno_run_events SET created_at = created_at - 7200 WHERE run_id = 'ev-old' OR (run_id = 'ev-r' AND event_index < 3)`);
    expect(await t.db.pruneRunEvents(Math.floor(Date.now() / 1000) - 3600)).toBe(2);
    expect(await t.db.lastRunEventIndex("ev-old")).toBe(-1);
    expect(await t.db.lastRunEventIndex("ev-r")).toBe(4);

    await t.db.deleteRun("ev-r");
    expect(await t.db.getRunEvents("ev-r", { afterIndex: -1 })).toEqual([]);
  });

  it("honours a custom schema and table names", async () => {
    const custom = openTestDb(target, { tables: { sessions: "team_sessions", runs: "team_runs" } });
    try {
      await custom.db.upsertSession({ session_id: "c1", session_type: "agent" });
      await custom.db.upsertRun({ run_id: "c1-r", session_id: "c1", agent_id: "a" });
      const tables = await custom.query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1`,
        [custom.schema],
      );
      expect(tables.map((r) => r.table_name)).toEqual(["agno_jobs", "agno_memories", "agno_run_events", "agno_schedule_runs", "agno_schedules", "agno_schema_versions", "agno_tool_results", "team_runs", "team_sessions"]);
    } finally {
      await custom.close();
    }
  });

  it("refuses a database that is newer than the code, or a runs table made by something else", async () => {
    const ahead = openTestDb(target);
    try {
      await ahead.db.init();
      await ahead.query(`UPDATE "${ahead.schema}".agno_schema_versions SET version = '3.4.0' WHERE table_name = 'agno_runs'`);
      const again = openTestDb(target, { schema: ahead.schema });
      await expect(again.db.getRuns()).rejects.toThrow(SchemaMismatchError);
      await expect(again.db.init()).rejects.toMatchObject({ errorId: "schema_mismatch_error", message: /3\.4\.0/ });
      await again.pool.end();
    } finally {
      await ahead.close();
    }
    const foreign = openTestDb(target);
    try {
      await foreign.query(`CREATE SCHEMA "${foreign.schema}"`);
      await foreign.query(`CREATE TABLE "${foreign.schema}".agno_runs (run_id varchar primary key, payload jsonb)`);
      await expect(foreign.db.init()).rejects.toMatchObject({ name: "SchemaMismatchError", message: /run_type/ });
    } finally {
      await foreign.close();
    }
  });

  it("stores user memories per user: listed newest first, another user's id is refused", async () => {
    await t.db.upsertUserMemory({ memory_id: "m1", user_id: "mia", memory: "Mia likes green tea", topics: ["drinks"] });
    await t.db.upsertUserMemory({ memory_id: "m2", user_id: "mia", memory: "Mia lives in Lyon" });
    await t.db.upsertUserMemory({ memory_id: "m3", user_id: "noah", memory: "Noah plays chess" });
    expect((await t.db.getUserMemories("mia")).map((m) => m.memory).sort()).toEqual(["Mia likes green tea", "Mia lives in Lyon"]);
    await expect(t.db.upsertUserMemory({ memory_id: "m1", user_id: "noah", memory: "stolen" })).rejects.toThrow(ConflictError);
    await expect(t.db.deleteUserMemory("m1", { userId: "noah" })).rejects.toThrow(NotFoundError);
    await expect(t.db.upsertUserMemory({ memory_id: "m4", user_id: "mia", memory: "" })).rejects.toThrow(ValidationError);
    await t.db.upsertUserMemory({ memory_id: "m1", user_id: "mia", memory: "Mia prefers oolong now" });
    expect((await t.db.getUserMemories("mia", { limit: 1 }))[0]!.memory).toBe("Mia prefers oolong now");
    await t.db.deleteUserMemory("m2", { userId: "mia" });
    expect((await t.db.getUserMemories("mia")).map((m) => m.memory_id)).toEqual(["m1"]);
  });

  it("adds a table introduced after the database was stamped (agno_memories on an older 3.0 install)", async () => {
    const older = openTestDb(target);
    try {
      await older.db.init();
      await older.query(`DROP TABLE "${older.schema}".agno_memories`);
      await older.query(`DELETE FROM "${older.schema}".agno_schema_versions WHERE table_name = 'agno_memories'`);
      const again = openTestDb(target, { schema: older.schema });
      expect(await again.db.init()).toBe("current");
      expect(await again.db.getUserMemories("anyone")).toEqual([]);
      await again.pool.end();
    } finally {
      await older.close();
    }
  });

  it("includeShared adds rows that belong to no user to a user's reads", async () => {
    await t.db.upsertSession({ session_id: "shared-s", session_type: "agent", agent_id: "kb" });
    await t.db.upsertRun({ run_id: "shared-r", session_id: "shared-s", agent_id: "kb", status: "COMPLETED" });
    await t.db.upsertSession({ session_id: "own-s", session_type: "agent", agent_id: "kb", user_id: "sam" });
    expect(await t.db.getSession("shared-s", { userId: "sam" })).toBeNull();
    expect(await t.db.getSession("shared-s", { userId: "sam", includeShared: true })).not.toBeNull();
    const listed = await t.db.getSessions({ componentId: "kb", userId: "sam", includeShared: true });
    expect(listed.data.map((x) => x.sessionId).sort()).toEqual(["own-s", "shared-s"]);
    expect((await t.db.getSessions({ componentId: "kb", userId: "sam" })).data.map((x) => x.sessionId)).toEqual(["own-s"]);
    expect(await t.db.getRun("shared-r", { userId: "sam", includeShared: true })).not.toBeNull();
    expect((await t.db.getRuns({ agentId: "kb", userId: "sam", includeShared: true })).data.map((r) => r.run_id)).toEqual(["shared-r"]);
    await expect(t.db.renameSession("shared-s", "x", { userId: "sam" })).rejects.toThrow(NotFoundError);
  });
});
