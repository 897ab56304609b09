import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INTERRUPTED } from "../../src/agent/liveness.js";
import { MAX_PAGE_LIMIT } from "../../src/db/pagination.js";
import type { QueueDb } from "../../src/db/port.js";
import { stateChanges } from "../../src/db/state-changes.js";
import type { GetSessionOptions, RunRecord, RunRow } from "../../src/db/types.js";
import { ConflictError, NotFoundError, StatusConflictError, ValidationError } from "../../src/errors.js";
import { describeApprovalStoreContract } from "./approval-store-contract.js";
import { describeAccountsAuditContract } from "./accounts-audit-contract.js";
import { describeTraceStoreContract } from "./trace-store-contract.js";
import { describeEvalStoreContract } from "./eval-store-contract.js";
import { describeComponentStoreContract } from "./component-store-contract.js";
import { describeJobStoreContract } from "./job-store-contract.js";
import { describeMemoryStoreContract } from "./memory-store-contract.js";
import { describeMetricsStoreContract } from "./metrics-store-contract.js";
import { describeScheduleStoreContract } from "./schedule-store-contract.js";

/**
 * One adapter under the contract: a fresh, empty database (with its durable queue and schedules)
 * each time `make` is called, and the things a test does to it behind the port (what a clock
 * would have done by now).
 */
export interface ContractDb {
  db: QueueDb;
  /** sets a run's heartbeat (its row's `updated_at`) to `at`, epoch seconds */
  setRunUpdatedAt(runId: string, at: number): Promise<void>;
  /** moves the stored time of a run's events back by `seconds`; only positions below `belowIndex` when given */
  ageRunEvents(runId: string, seconds: number, belowIndex?: number): Promise<void>;
  /** lets a job's lease lapse, as when its worker stops renewing it */
  expireJobLease(jobId: string): Promise<void>;
  /** moves the due and creation times of a user's jobs back by `seconds` */
  ageJobs(userId: string, seconds: number): Promise<void>;
  /** stores a memory row whose `memory` is any JSON value, as agno (or its v1 migration) may have written it */
  putStoredMemory(row: { memory_id: string; user_id: string; memory: unknown }): Promise<void>;
  close(): Promise<void>;
}

/**
 * The Db port's contract (SPEC R1-R4), with its durable queue and schedules
 * (job-store-contract.ts, schedule-store-contract.ts), run against every adapter: each must answer
 * these alike, so domain code and its unit tests never depend on which one is behind the port.
 * What only Postgres has (its catalog, schema versions, row versions, pools, statement counts) is
 * test/node/postgres-db.test.ts and the statement suites.
 */
export function describeDbContract(name: string, make: () => ContractDb | Promise<ContractDb>): void {
  describe(`Db contract on ${name}`, () => {
    let c: ContractDb;
    beforeAll(async () => {
      c = await make();
      expect(await c.db.init()).toBe("current");
    });
    afterAll(() => c.close());

    const session = (id: string, extra: Record<string, unknown> = {}) =>
      c.db.upsertSession({ session_id: id, session_type: "agent", agent_id: "assistant", user_id: "alice", ...extra });
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
    const now = () => Math.floor(Date.now() / 1000);

    it("stores each run as one row and joins them back into the session in order", async () => {
      await session("s-join");
      for (let i = 0; i < 3; i++) await c.db.upsertRun(run(`join-${i}`, "s-join"));
      const rows = (await c.db.getRuns({ sessionId: "s-join", sortOrder: "asc" })).data;
      expect(rows.map((r) => [r.run_id, r.run_index, r.run_type, r.user_id])).toEqual([
        ["join-0", 0, "agent", "alice"],
        ["join-1", 1, "agent", "alice"],
        ["join-2", 2, "agent", "alice"],
      ]);
      const s = await c.db.getSession("s-join");
      expect(s!.runs.map((r) => r.run_id)).toEqual(["join-0", "join-1", "join-2"]);
      const history = s!.getMessages();
      expect(history.filter((m) => m.role === "system")).toHaveLength(1);
      expect(s!.getChatHistory().map((m) => m.content)).toEqual([
        "question join-0",
        "answer join-0",
        "question join-1",
        "answer join-1",
        "question join-2",
        "answer join-2",
      ]);
      expect(s!.getMessages({ lastNRuns: 1, skipRoles: ["system"] }).map((m) => m.content)).toEqual([
        "question join-2",
        "answer join-2",
      ]);
    });

    it("upserting a run rewrites that run only and keeps its run_index", async () => {
      await session("s-o1");
      for (let i = 0; i < 5; i++) await c.db.upsertRun(run(`o1-${i}`, "s-o1", { status: "RUNNING" }));
      const before = (await c.db.getRuns({ sessionId: "s-o1", sortOrder: "asc" })).data;
      const updated = await c.db.upsertRun(run("o1-2", "s-o1", { status: "COMPLETED", content: "done" }));
      expect(updated.run_index).toBe(2);
      expect(updated.status).toBe("COMPLETED");
      const after = (await c.db.getRuns({ sessionId: "s-o1", sortOrder: "asc" })).data;
      expect(after.filter((r, i) => JSON.stringify(r) !== JSON.stringify(before[i])).map((r) => r.run_id)).toEqual([
        "o1-2",
      ]);
      expect((await c.db.getRun("o1-2"))!.run_data.content).toBe("done");
    });

    it("two writers upserting runs of one session at once lose nothing", async () => {
      await session("s-race");
      const writer = (w: string) =>
        (async () => {
          for (let i = 0; i < 15; i++) await c.db.upsertRun(run(`race-${w}-${i}`, "s-race"));
        })();
      await Promise.all([writer("a"), writer("b"), writer("c")]);
      const rows = (await c.db.getRuns({ sessionId: "s-race", sortOrder: "asc" })).data;
      expect(rows.map((r) => r.run_index)).toEqual(Array.from({ length: 45 }, (_, i) => i));
      expect((await c.db.getSession("s-race"))!.runs).toHaveLength(45);
    });

    it("runsLimit joins the last N top-level runs that can feed history; includeRuns false joins none", async () => {
      await session("s-limit");
      await c.db.upsertRun(run("l-0", "s-limit"));
      await c.db.upsertRun(run("l-1", "s-limit"));
      await c.db.upsertRun(run("l-1-member", "s-limit", { parent_run_id: "l-1" }));
      await c.db.upsertRun(run("l-2", "s-limit", { status: "ERROR" }));
      await c.db.upsertRun(run("l-3", "s-limit"));
      expect((await c.db.getSession("s-limit", { runsLimit: 2 }))!.runs.map((r) => r.run_id)).toEqual(["l-1", "l-3"]);
      expect((await c.db.getSession("s-limit"))!.runs).toHaveLength(5);
      expect((await c.db.getSession("s-limit", { includeRuns: false }))!.record.runs).toBeUndefined();
    });

    it("getSessionWithRun reads what getSession and getRun would, together", async () => {
      await session("s-with", { session_data: { session_state: { n: 1 } } });
      await c.db.upsertRun(run("w-0", "s-with"));
      await c.db.upsertRun(run("w-1", "s-with", { status: "ERROR" }));
      await c.db.upsertRun(run("w-2", "s-with", { status: "PENDING" }));
      for (const opts of [{ runsLimit: 2 }, {}, { includeRuns: false }, { userId: "alice" }]) {
        const both = await c.db.getSessionWithRun("s-with", "w-2", opts);
        expect(both.session!.record).toEqual((await c.db.getSession("s-with", opts))!.record);
        expect(both.run).toEqual(await c.db.getRun("w-2"));
      }
      expect(
        (await c.db.getSessionWithRun("s-with", "w-2", { runsLimit: 2 })).session!.runs.map((r) => r.run_id),
      ).toEqual(["w-0", "w-2"]);
      expect(await c.db.getSessionWithRun("s-with", "w-absent")).toMatchObject({
        session: { record: { session_id: "s-with" } },
        run: null,
      });
      expect(await c.db.getSessionWithRun("s-with", "w-0", { userId: "bob" })).toMatchObject({
        session: null,
        run: { run_id: "w-0" },
      });
      expect(await c.db.getSessionWithRun("s-absent", "w-absent")).toEqual({ session: null, run: null });
      await expect(c.db.getSessionWithRun("s-with", "w-0", { runsLimit: -1 })).rejects.toThrow(ValidationError);
      await expect(c.db.getSessionWithRun("s-with", "")).rejects.toThrow(ValidationError);
    });

    it("getSessionWithRun calls made together answer each as it would alone", async () => {
      // A database of its own: the listing tests count what the others wrote.
      const own = await make();
      const db = own.db;
      await db.init();
      await db.upsertSession({ session_id: "s-bat-a", session_type: "agent", agent_id: "assistant", user_id: "carol" });
      await db.upsertSession({ session_id: "s-bat-b", session_type: "agent", agent_id: "assistant", user_id: "dave" });
      for (const [i, id] of ["b-0", "b-1", "b-2"].entries())
        await db.upsertRun(run(id, "s-bat-a", { status: i === 1 ? "ERROR" : "COMPLETED" }));
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
      const mixed = await Promise.allSettled([
        db.getSessionWithRun("s-bat-a", "b-0", { runsLimit: 2 }),
        db.getSessionWithRun("s-bat-a", "", { runsLimit: 2 }),
      ]);
      expect(mixed.map((m) => m.status)).toEqual(["fulfilled", "rejected"]);
      await own.close();
    });

    it("upsertRun calls with expectStatus made together answer each as it would alone", async () => {
      const own = await make();
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
          db.upsertRun(run("u-1", "s-up-a", { status: "RUNNING", content: "one" }), {
            expectStatus: ["PENDING", "RUNNING"],
          }), // same session, one batch
          db.upsertRun(run("u-3", "s-up-b", { status: "RUNNING" }), { expectStatus: ["PENDING"] }), // COMPLETED: 409, nothing written
          db.upsertRun(run("u-new", "s-up-b", { status: "RUNNING" }), { expectStatus: ["PENDING"] }), // not there yet: inserted, as alone
          db.upsertRun(run("u-4", "s-up-b", { status: "RUNNING", user_id: "erin" }), { expectStatus: ["PENDING"] }), // another user's session: 409
          db.upsertRun(run("u-2", "s-up-a", { status: "RUNNING", content: "first" }), { expectStatus: ["PENDING"] }),
        ]);
        expect(outcomes.map((o) => o.status)).toEqual([
          "fulfilled",
          "fulfilled",
          "rejected",
          "fulfilled",
          "rejected",
          "fulfilled",
        ]);
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
      await c.db.upsertSession({ session_id: "s-list-b", session_type: "team", team_id: "crew", user_id: "bob" });
      for (let i = 0; i < 7; i++) {
        await c.db.upsertRun(
          run(`la-${i}`, "s-list-a", { status: i % 2 ? "ERROR" : "COMPLETED", created_at: 1_000 + i }),
        );
      }
      await c.db.upsertRun({
        run_id: "lb-0",
        session_id: "s-list-b",
        team_id: "crew",
        status: "COMPLETED",
        created_at: 2_000,
      });
      const page2 = await c.db.getRuns({ sessionId: "s-list-a", limit: 3, page: 2, sortOrder: "asc" });
      expect(page2.data.map((r) => r.run_id)).toEqual(["la-3", "la-4", "la-5"]);
      expect(page2).toMatchObject({ page: 2, limit: 3, total_count: 7, total_pages: 3 });
      const errors = await c.db.getRuns({ sessionId: "s-list-a", status: "ERROR" });
      expect(errors.data.map((r) => r.run_id).sort()).toEqual(["la-1", "la-3", "la-5"]);
      const bob = await c.db.getRuns({ userId: "bob" });
      expect(bob.data.map((r) => [r.run_id, r.run_type])).toEqual([["lb-0", "team"]]);
      const newest = await c.db.getRuns({
        sessionId: "s-list-a",
        agentId: "assistant",
        sortBy: "created_at",
        sortOrder: "desc",
        limit: 1,
      });
      expect(newest.data[0]!.run_id).toBe("la-6");
    });

    it("refuses page without limit, page < 1 and oversize limits", async () => {
      await expect(c.db.getRuns({ page: 2 })).rejects.toMatchObject({ name: "ValidationError", field: "page" });
      await expect(c.db.getRuns({ limit: 10, page: 0 })).rejects.toThrow(ValidationError);
      await expect(c.db.getRuns({ limit: MAX_PAGE_LIMIT + 1 })).rejects.toMatchObject({ field: "limit" });
      await expect(c.db.getSessions({ limit: 1.5 })).rejects.toThrow(ValidationError);
      await expect(c.db.getSessions({ page: 1 })).rejects.toThrow(/page needs limit/);
      await expect(c.db.getRuns({ sortOrder: "sideways" as never })).rejects.toThrow(ValidationError);
    });

    it("lists sessions without their runs, filtered and paged", async () => {
      for (let i = 0; i < 4; i++) {
        await c.db.upsertSession({
          session_id: `ls-${i}`,
          session_type: "agent",
          agent_id: "lister",
          user_id: "carol",
          created_at: 5_000 + i,
        });
        await c.db.upsertRun(run(`ls-run-${i}`, `ls-${i}`, { agent_id: "lister" }));
      }
      await c.db.renameSession("ls-2", "Quarterly report");
      const page = await c.db.getSessions({ userId: "carol", limit: 3, sortOrder: "asc" });
      expect(page.data.map((s) => s.sessionId)).toEqual(["ls-0", "ls-1", "ls-2"]);
      expect(page.total_count).toBe(4);
      expect(page.data.every((s) => s.record.runs === undefined)).toBe(true);
      const named = await c.db.getSessions({ sessionName: "quarterly" });
      expect(named.data.map((s) => s.sessionId)).toEqual(["ls-2"]);
      expect(named.data[0]!.record.session_data?.session_name).toBe("Quarterly report");
      const withRuns = await c.db.getSessions({ componentId: "lister", includeRuns: true, limit: 10 });
      expect(withRuns.data.map((s) => s.runs.length)).toEqual([1, 1, 1, 1]);
    });

    it("rejects bad input with typed errors and writes nothing", async () => {
      await expect(c.db.upsertRun(run("orphan", "no-such-session"))).rejects.toThrow(NotFoundError);
      expect(await c.db.getRun("orphan")).toBeNull();
      await expect(c.db.upsertRun({ run_id: 42, session_id: "s-join" } as never)).rejects.toMatchObject({
        name: "ValidationError",
        field: "run_id",
      });
      await expect(c.db.upsertRun(run("bad-status", "s-join", { status: "DONE" }))).rejects.toMatchObject({
        field: "status",
      });
      await expect(c.db.upsertRun(run("bad-ts", "s-join", { created_at: "yesterday" as never }))).rejects.toMatchObject(
        { field: "created_at" },
      );
      await expect(c.db.upsertSession({ session_id: "x", session_type: "robot" } as never)).rejects.toMatchObject({
        field: "session_type",
      });
      await expect(c.db.upsertSession({ session_id: "y".repeat(300), session_type: "agent" })).rejects.toMatchObject({
        field: "session_id",
      });
      expect(await c.db.getSession("x")).toBeNull();
      // A run id cannot move to another session, and a session never changes owner through an upsert.
      await session("s-other");
      await expect(c.db.upsertRun(run("join-0", "s-other"))).rejects.toThrow(ConflictError);
      expect((await c.db.getRun("join-0"))!.session_id).toBe("s-join");
      await expect(session("s-join", { user_id: "mallory" })).rejects.toThrow(ConflictError);
      expect((await c.db.getSession("s-join"))!.record.user_id).toBe("alice");
      // A session with runs in the same upsert: all or nothing.
      await expect(
        c.db.upsertSession({
          session_id: "s-atomic",
          session_type: "agent",
          runs: [run("atomic-0", "s-atomic"), run("join-1", "s-atomic")],
        }),
      ).rejects.toThrow(ConflictError);
      expect(await c.db.getSession("s-atomic")).toBeNull();
      expect(await c.db.getRun("atomic-0")).toBeNull();
    });

    it("deletes runs and sessions all or nothing, scoped by user", async () => {
      await session("s-del");
      for (let i = 0; i < 3; i++) await c.db.upsertRun(run(`del-${i}`, "s-del"));
      await expect(c.db.deleteRuns(["del-0", "nope"])).rejects.toThrow(/nope/);
      expect(await c.db.getRun("del-0")).not.toBeNull();
      await expect(c.db.deleteRun("del-0", { userId: "bob" })).rejects.toThrow(NotFoundError);
      expect(await c.db.deleteRuns(["del-0", "del-1"], { userId: "alice" })).toBe(2);
      expect((await c.db.getSession("s-del"))!.runs.map((r) => r.run_id)).toEqual(["del-2"]);
      expect(await c.db.getSession("s-del", { userId: "bob" })).toBeNull();
      await expect(c.db.deleteSession("s-del", { userId: "bob" })).rejects.toThrow(NotFoundError);
      await c.db.deleteSession("s-del");
      expect(await c.db.getRun("del-2")).toBeNull(); // a session's runs go with it
      await expect(c.db.deleteSession("s-del")).rejects.toThrow(NotFoundError);
    });

    it("keeps a run's event log by position: ordered reads, no overwrites, gone with its run, pruned whole", async () => {
      await session("ev-s");
      await c.db.upsertRun(run("ev-r", "ev-s", { status: "RUNNING" }));
      expect(await c.db.lastRunEventIndex("ev-r")).toBe(-1);
      const ev = (n: number) => ({
        event: n === 4 ? "RunCompleted" : "RunContent",
        run_id: "ev-r",
        content: `c${n}`,
        note: "日本語 🎉",
      });
      await c.db.appendRunEvents("ev-r", 0, [ev(0), ev(1)]);
      await c.db.appendRunEvents("ev-r", 2, [ev(2), ev(3), ev(4)]);
      expect(await c.db.lastRunEventIndex("ev-r")).toBe(4);
      expect(await c.db.getRunEvents("ev-r", { afterIndex: -1 })).toEqual(
        [0, 1, 2, 3, 4].map((i) => ({ index: i, event: ev(i) })),
      );
      expect((await c.db.getRunEvents("ev-r", { afterIndex: 1, limit: 2 })).map((e) => e.index)).toEqual([2, 3]);
      expect(await c.db.getRunEvents("ev-r", { afterIndex: 4 })).toEqual([]);
      await expect(c.db.appendRunEvents("ev-r", 4, [ev(9)])).rejects.toThrow(ConflictError);
      expect((await c.db.getRunEvents("ev-r", { afterIndex: 3 }))[0]!.event.content).toBe("c4"); // the refused write changed nothing
      await expect(c.db.appendRunEvents("ev-unknown-run", 0, [ev(0)])).rejects.toThrow(ConflictError);
      await expect(c.db.getRunEvents("ev-r", { afterIndex: -2 })).rejects.toThrow(ValidationError);
      await expect(c.db.appendRunEvents("ev-r", -1, [ev(0)])).rejects.toThrow(ValidationError);

      // Pruning takes whole logs whose last event is older than the cut-off, never a log's head only.
      await c.db.upsertRun(run("ev-old", "ev-s"));
      await c.db.appendRunEvents("ev-old", 0, [ev(0), ev(1)]);
      await c.ageRunEvents("ev-old", 7200);
      await c.ageRunEvents("ev-r", 7200, 3);
      expect(await c.db.pruneRunEvents(now() - 3600)).toBe(2);
      expect(await c.db.lastRunEventIndex("ev-old")).toBe(-1);
      expect(await c.db.lastRunEventIndex("ev-r")).toBe(4);

      await c.db.deleteRun("ev-r");
      expect(await c.db.getRunEvents("ev-r", { afterIndex: -1 })).toEqual([]);
    });

    it("stores user memories per user: listed newest first, another user's id is refused", async () => {
      await c.db.upsertUserMemory({
        memory_id: "m1",
        user_id: "mia",
        memory: "Mia likes green tea",
        topics: ["drinks"],
      });
      await c.db.upsertUserMemory({ memory_id: "m2", user_id: "mia", memory: "Mia lives in Lyon" });
      await c.db.upsertUserMemory({ memory_id: "m3", user_id: "noah", memory: "Noah plays chess" });
      expect((await c.db.getUserMemories("mia")).map((m) => m.memory).sort()).toEqual([
        "Mia likes green tea",
        "Mia lives in Lyon",
      ]);
      await expect(c.db.upsertUserMemory({ memory_id: "m1", user_id: "noah", memory: "stolen" })).rejects.toThrow(
        ConflictError,
      );
      await expect(c.db.deleteUserMemory("m1", { userId: "noah" })).rejects.toThrow(NotFoundError);
      await expect(c.db.upsertUserMemory({ memory_id: "m4", user_id: "mia", memory: "" })).rejects.toThrow(
        ValidationError,
      );
      await c.db.upsertUserMemory({ memory_id: "m1", user_id: "mia", memory: "Mia prefers oolong now" });
      expect((await c.db.getUserMemories("mia", { limit: 1 }))[0]!.memory).toBe("Mia prefers oolong now");
      await c.db.deleteUserMemory("m2", { userId: "mia" });
      expect((await c.db.getUserMemories("mia")).map((m) => m.memory_id)).toEqual(["m1"]);
    });

    it("includeShared adds rows that belong to no user to a user's reads", async () => {
      await c.db.upsertSession({ session_id: "shared-s", session_type: "agent", agent_id: "kb" });
      await c.db.upsertRun({ run_id: "shared-r", session_id: "shared-s", agent_id: "kb", status: "COMPLETED" });
      await c.db.upsertSession({ session_id: "own-s", session_type: "agent", agent_id: "kb", user_id: "sam" });
      expect(await c.db.getSession("shared-s", { userId: "sam" })).toBeNull();
      expect(await c.db.getSession("shared-s", { userId: "sam", includeShared: true })).not.toBeNull();
      const listed = await c.db.getSessions({ componentId: "kb", userId: "sam", includeShared: true });
      expect(listed.data.map((x) => x.sessionId).sort()).toEqual(["own-s", "shared-s"]);
      expect((await c.db.getSessions({ componentId: "kb", userId: "sam" })).data.map((x) => x.sessionId)).toEqual([
        "own-s",
      ]);
      expect(await c.db.getRun("shared-r", { userId: "sam", includeShared: true })).not.toBeNull();
      expect(
        (await c.db.getRuns({ agentId: "kb", userId: "sam", includeShared: true })).data.map((r) => r.run_id),
      ).toEqual(["shared-r"]);
      await expect(c.db.renameSession("shared-s", "x", { userId: "sam" })).rejects.toThrow(NotFoundError);
    });

    // -- session state (issue 15: lost updates) ------------------------------------------------

    it("merges changes into the stored state under the session's lock: keys at any depth, appended lists, deletes", async () => {
      const sessionId = `merge-${crypto.randomUUID()}`;
      await c.db.createSession({
        session_id: sessionId,
        session_type: "agent",
        session_data: { session_name: "m", session_state: { n: 1, list: ["a"], nested: { x: 1, y: 2 }, gone: true } },
      });
      const loaded = { n: 1, list: ["a"], nested: { x: 1, y: 2 }, gone: true };
      const runs = [
        { n: 1, list: ["a", "b"], nested: { x: 10, y: 2 }, gone: true },
        { n: 2, list: ["a", "c"], nested: { x: 1, y: 2, z: 3 } },
        { n: 1, list: ["a"], nested: { x: 1, y: 2 }, gone: true, fresh: ["d"] },
      ];
      await Promise.all(runs.map((next) => c.db.updateSessionState(sessionId, stateChanges(loaded, next))));
      const stored = (await c.db.getSession(sessionId))!.record.session_data!.session_state as Record<string, unknown>;
      expect({ ...stored, list: [...(stored.list as string[])].sort() }).toEqual({
        n: 2,
        list: ["a", "b", "c"],
        nested: { x: 10, y: 2, z: 3 },
        fresh: ["d"],
      });
      expect(await c.db.updateSessionState("no-such-session", [{ op: "set", path: ["k"], value: 1 }])).toBeNull();
    });

    // -- liveness of interactive runs ----------------------------------------------------------

    describe("run liveness", () => {
      let n = 0;
      /** A run stored as RUNNING, its heartbeat `age` seconds old. */
      const running = async (age: number, status = "RUNNING") => {
        const id = `lv-${n++}`;
        await c.db.upsertSession({ session_id: `${id}-s`, session_type: "agent", agent_id: "a" });
        await c.db.upsertRun({ run_id: id, session_id: `${id}-s`, agent_id: "a", status, messages: [] });
        await c.setRunUpdatedAt(id, now() - age);
        return id;
      };
      const row = async (id: string) => (await c.db.getRun(id))!;
      const sweep = (limit?: number, runId?: string) =>
        c.db.interruptStaleRuns({
          ...INTERRUPTED,
          staleBefore: now() - 30,
          ...(limit ? { limit } : {}),
          ...(runId ? { runId } : {}),
        });

      it("a heartbeat freshens a RUNNING run's row, and says false for a run no longer RUNNING", async () => {
        const live = await running(100);
        expect(await c.db.heartbeatRun(live)).toBe(true);
        expect(Number((await row(live)).updated_at)).toBeGreaterThanOrEqual(now() - 1);
        const paused = await running(100, "PAUSED");
        expect(await c.db.heartbeatRun(paused)).toBe(false);
        expect(Number((await row(paused)).updated_at)).toBeLessThan(now() - 50);
      });

      it("ends at most `limit` stale runs per statement, oldest first, each with one closing RunError after its events", async () => {
        await sweep(1000); // whatever an earlier test left
        const oldest = await running(300);
        await c.db.appendRunEvents(oldest, 0, [{ event: "RunStarted", run_id: oldest }]);
        const older = await running(200);
        const fresh = await running(5);
        expect((await sweep(1)).map((r) => r.run_id)).toEqual([oldest]);
        expect((await row(older)).status).toBe("RUNNING");
        expect((await sweep(10)).map((r) => r.run_id)).toEqual([older]);
        expect(await sweep(10)).toEqual([]);
        expect((await row(fresh)).status).toBe("RUNNING");
        const stored = await c.db.getRun(oldest);
        expect(stored).toMatchObject({
          status: "ERROR",
          run_data: {
            status: "ERROR",
            content: INTERRUPTED.message,
            error: { kind: "interrupted", type: INTERRUPTED.errorType },
          },
        });
        expect((await c.db.getRunEvents(oldest, { afterIndex: -1 })).map((e) => e.event)).toEqual([
          { event: "RunStarted", run_id: oldest },
          expect.objectContaining({
            event: "RunError",
            run_id: oldest,
            session_id: `${oldest}-s`,
            agent_id: "a",
            error_kind: "interrupted",
            content: INTERRUPTED.message,
          }),
        ]);
      });
    });

    it("lists the PAUSED runs whose pending review's deadline passed, earliest first, at most `limit`", async () => {
      const wf = async (id: string, status: string, reqs: Array<{ timeout_at?: string | null }>) => {
        await c.db.upsertSession({ session_id: `${id}-s`, session_type: "workflow", workflow_id: "flow" });
        await c.db.upsertRun({
          run_id: id,
          session_id: `${id}-s`,
          workflow_id: "flow",
          status,
          step_requirements: reqs.map((r, i) => ({ step_id: `st-${i}`, ...r })),
        } as RunRecord);
      };
      const at = (offsetSeconds: number) => new Date(Date.UTC(2030, 0, 1) + offsetSeconds * 1000).toISOString();
      await wf("tr-late", "PAUSED", [{ timeout_at: at(-10) }]);
      await wf("tr-later", "PAUSED", [{ timeout_at: at(-300) }]);
      await wf("tr-exact", "PAUSED", [{ timeout_at: at(0) }]);
      await wf("tr-future", "PAUSED", [{ timeout_at: at(60) }]);
      await wf("tr-none", "PAUSED", [{ timeout_at: null }]);
      // Only the pending (last) requirement counts: an earlier one's deadline is history.
      await wf("tr-history", "PAUSED", [{ timeout_at: at(-900) }, {}]);
      await wf("tr-resumed", "RUNNING", [{ timeout_at: at(-600) }]);
      const due = await c.db.listTimedOutReviews({ now: at(0) });
      expect(due.map((r) => r.run_id)).toEqual(["tr-later", "tr-late", "tr-exact"]);
      expect(due[0]).toEqual({
        run_id: "tr-later",
        session_id: "tr-later-s",
        workflow_id: "flow",
        timeout_at: at(-300),
      });
      expect((await c.db.listTimedOutReviews({ now: at(0), limit: 1 })).map((r) => r.run_id)).toEqual(["tr-later"]);
      expect(await c.db.listTimedOutReviews({ now: at(-301) })).toEqual([]);
      // Once a resolver moved it on (PAUSED no more), it is not listed again.
      await c.db.upsertRun(
        { run_id: "tr-later", session_id: "tr-later-s", workflow_id: "flow", status: "RUNNING" } as RunRecord,
        { expectStatus: ["PAUSED"] },
      );
      expect((await c.db.listTimedOutReviews({ now: at(0) })).map((r) => r.run_id)).toEqual(["tr-late", "tr-exact"]);
      await expect(c.db.listTimedOutReviews({ now: "yesterday" })).rejects.toThrow(ValidationError);
    });

    describeApprovalStoreContract(() => c);
    describeJobStoreContract(() => c, make);
    describeScheduleStoreContract(() => c, make);
    describeAccountsAuditContract(() => c);
    describeTraceStoreContract(() => c);
    describeMetricsStoreContract(() => c);
    describeEvalStoreContract(() => c);
    describeComponentStoreContract(() => c);
    describeMemoryStoreContract(make);
  });
}
