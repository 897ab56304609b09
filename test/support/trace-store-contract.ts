import { describe, expect, it } from "vitest";
import type { SpanRecord, TraceRecord } from "../../src/db/port.js";
import { parseTraceFilter } from "../../src/db/trace-filter.js";
import { ValidationError } from "../../src/errors.js";
import type { ContractDb } from "./db-contract.js";

/** A time `seconds` after a fixed instant, as the tracer writes times (UTC ISO). */
const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, 0) + seconds * 1000).toISOString();

/**
 * Trace storage (issue 23), part of the Db contract: `c()` is the suite's shared database, so each
 * test names its rows with a prefix of its own. Every adapter merges a trace's batches by agno's
 * rule, counts spans, pages latest start first, filters, sums per session and evaluates agno's
 * filter expressions alike (a NULL column satisfies no comparison, as in SQL).
 */
export function describeTraceStoreContract(c: () => ContractDb): void {
  let counter = 0;
  const prefix = () => `tr${++counter}x${Math.floor(Math.random() * 1e9).toString(36)}`;
  const trace = (id: string, extra: Partial<TraceRecord> = {}): TraceRecord => ({
    trace_id: id,
    name: "Agent.run",
    status: "OK",
    start_time: at(0),
    end_time: at(1),
    duration_ms: 1000,
    run_id: null,
    session_id: null,
    user_id: null,
    agent_id: null,
    team_id: null,
    workflow_id: null,
    created_at: at(0),
    ...extra,
  });
  const span = (id: string, traceId: string, extra: Partial<SpanRecord> = {}): SpanRecord => ({
    span_id: id,
    trace_id: traceId,
    parent_span_id: null,
    name: "Agent.run",
    span_kind: "INTERNAL",
    status_code: "OK",
    status_message: null,
    start_time: at(0),
    end_time: at(1),
    duration_ms: 1000,
    attributes: { "openinference.span.kind": "AGENT", "input.value": "hi" },
    created_at: at(0),
    ...extra,
  });
  const ids = (rows: { trace_id: string }[]) => rows.map((r) => r.trace_id);

  describe("traces", () => {
    it("merges two batches of one trace: earliest start, latest end, their duration, the latest status", async () => {
      const db = c().db;
      const id = `${prefix()}-t`;
      await db.traces.writeTraces([trace(id, { start_time: at(5), end_time: at(7), duration_ms: 2000 })], []);
      await db.traces.writeTraces(
        [trace(id, { start_time: at(2), end_time: at(6), duration_ms: 4000, status: "ERROR" })],
        [],
      );
      expect(await db.traces.getTrace({ trace_id: id })).toMatchObject({
        start_time: at(2),
        end_time: at(7),
        duration_ms: 5000,
        status: "ERROR",
      });
      await db.traces.writeTraces([trace(id, { start_time: at(3), end_time: at(9.5), status: "OK" })], []);
      expect(await db.traces.getTrace({ trace_id: id })).toMatchObject({
        start_time: at(2),
        end_time: at(9.5),
        duration_ms: 7500,
        status: "OK",
      });
    });

    it("keeps the name of the highest-level component: workflow over team over agent over a child span", async () => {
      const db = c().db;
      const id = `${prefix()}-t`;
      const write = (name: string, extra: Partial<TraceRecord>) =>
        db.traces.writeTraces([trace(id, { name, ...extra })], []);
      const name = async () => (await db.traces.getTrace({ trace_id: id }))!.name;
      await write("gpt-4o.invoke", { agent_id: "a" });
      expect(await name()).toBe("gpt-4o.invoke");
      await write("Helper.run", { agent_id: "a" });
      expect(await name()).toBe("Helper.run");
      await write("Squad.arun", { team_id: "t" });
      expect(await name()).toBe("Squad.arun");
      // an agent's run (level 1) and a child span (level 0) do not displace a team's name
      await write("Member.run", { agent_id: "m" });
      await write("search_web", { agent_id: "a" });
      expect(await name()).toBe("Squad.arun");
      await write("Flow.run", { workflow_id: "w" });
      expect(await name()).toBe("Flow.run");
      // equal level keeps the first
      await write("Other.run", { workflow_id: "w2" });
      expect(await name()).toBe("Flow.run");
    });

    it("keeps the first non-null run, session, user and component ids: a later child fills gaps, never overwrites", async () => {
      const db = c().db;
      const id = `${prefix()}-t`;
      await db.traces.writeTraces([trace(id, { run_id: "r1", session_id: "s1", user_id: "u1", agent_id: "a1" })], []);
      await db.traces.writeTraces(
        [
          trace(id, {
            name: "post_hook.run",
            run_id: "r2",
            session_id: "s2",
            user_id: "u2",
            agent_id: "a2",
            team_id: "t2",
            workflow_id: "w2",
          }),
        ],
        [],
      );
      expect(await db.traces.getTrace({ trace_id: id })).toMatchObject({
        run_id: "r1",
        session_id: "s1",
        user_id: "u1",
        agent_id: "a1",
        team_id: "t2",
        workflow_id: "w2",
      });
    });

    it("folds repeats of one trace inside a batch and keeps a span already stored", async () => {
      const db = c().db;
      const id = `${prefix()}-t`;
      await db.traces.writeTraces(
        [
          trace(id, { start_time: at(1), end_time: at(2), run_id: "r1" }),
          trace(id, { start_time: at(0), end_time: at(4), run_id: "r2", status: "ERROR" }),
        ],
        [span(`${id}-root`, id), span(`${id}-a`, id, { parent_span_id: `${id}-root`, start_time: at(2) })],
      );
      await db.traces.writeTraces(
        [trace(id, { start_time: at(1), end_time: at(3) })],
        [
          span(`${id}-a`, id, { name: "rewritten", status_code: "ERROR" }),
          span(`${id}-b`, id, { parent_span_id: `${id}-a`, start_time: at(3), status_code: "ERROR" }),
        ],
      );
      expect(await db.traces.getTrace({ trace_id: id })).toMatchObject({
        start_time: at(0),
        end_time: at(4),
        duration_ms: 4000,
        run_id: "r1",
        status: "OK",
        total_spans: 3,
        error_count: 1,
      });
      expect(await db.traces.getSpan(`${id}-a`)).toMatchObject({ name: "Agent.run", status_code: "OK" });
      expect((await db.traces.getSpans(id)).map((s) => s.span_id)).toEqual([`${id}-root`, `${id}-a`, `${id}-b`]);
      expect(await db.traces.getSpan(`${id}-b`)).toEqual(
        span(`${id}-b`, id, { parent_span_id: `${id}-a`, start_time: at(3), status_code: "ERROR" }),
      );
      expect(await db.traces.getSpan(`${id}-none`)).toBeNull();
      expect(await db.traces.getSpans(`${id}-none`)).toEqual([]);
    });

    it("refuses spans of a trace neither in the write nor stored, writing nothing of it; a stored trace takes more", async () => {
      const db = c().db;
      const id = `${prefix()}-t`;
      await expect(
        db.traces.writeTraces([trace(id)], [span(`${id}-ok`, id), span(`${id}-lost`, `${id}-none`)]),
      ).rejects.toBeInstanceOf(ValidationError);
      expect(await db.traces.getTrace({ trace_id: id })).toBeNull();
      expect(await db.traces.getSpan(`${id}-ok`)).toBeNull();
      await db.traces.writeTraces([trace(id)], []);
      await db.traces.writeTraces([], [span(`${id}-late`, id)]);
      expect((await db.traces.getSpans(id)).map((s) => s.span_id)).toEqual([`${id}-late`]);
    });

    it("stores a batch of more spans than one statement carries", async () => {
      const db = c().db;
      const id = `${prefix()}-t`;
      const many = Array.from({ length: 1203 }, (_, i) =>
        span(`${id}-${String(i).padStart(4, "0")}`, id, { status_code: i % 100 === 0 ? "ERROR" : "OK" }),
      );
      await db.traces.writeTraces([trace(id)], many);
      expect(await db.traces.getTrace({ trace_id: id })).toMatchObject({ total_spans: 1203, error_count: 13 });
    });

    it("finds a trace by id, or a run's latest by start; nothing for an unknown id or no key", async () => {
      const db = c().db;
      const p = prefix();
      await db.traces.writeTraces(
        [
          trace(`${p}-early`, { run_id: `${p}-run`, start_time: at(10) }),
          trace(`${p}-late`, { run_id: `${p}-run`, start_time: at(20), end_time: at(21) }),
        ],
        [],
      );
      expect(await db.traces.getTrace({ run_id: `${p}-run` })).toMatchObject({
        trace_id: `${p}-late`,
        total_spans: 0,
        error_count: 0,
      });
      expect((await db.traces.getTrace({ trace_id: `${p}-early`, run_id: `${p}-run` }))!.trace_id).toBe(`${p}-early`);
      expect(await db.traces.getTrace({ trace_id: `${p}-none` })).toBeNull();
      expect(await db.traces.getTrace({ run_id: `${p}-none` })).toBeNull();
      expect(await db.traces.getTrace({})).toBeNull();
    });

    it("pages traces latest start first, counting them all", async () => {
      const db = c().db;
      const p = prefix();
      const user = `${p}-u`;
      await db.traces.writeTraces(
        [0, 1, 2, 3, 4].map((i) => trace(`${p}-${i}`, { user_id: user, start_time: at(i), end_time: at(i + 1) })),
        [],
      );
      const first = await db.traces.getTraces({ user_id: user, limit: 2, page: 1 });
      expect(ids(first.data)).toEqual([`${p}-4`, `${p}-3`]);
      expect(first).toMatchObject({ total_count: 5, total_pages: 3, page: 1, limit: 2 });
      expect(ids((await db.traces.getTraces({ user_id: user, limit: 2, page: 3 })).data)).toEqual([`${p}-0`]);
      const past = await db.traces.getTraces({ user_id: user, limit: 2, page: 4 });
      expect(past.data).toEqual([]);
      expect(past.total_count).toBe(5);
    });

    it("filters by each id, the status and the time range; a user's traces exclude others' and those with no user", async () => {
      const db = c().db;
      const p = prefix();
      const u = `${p}-u`;
      await db.traces.writeTraces(
        [
          trace(`${p}-a`, {
            user_id: u,
            run_id: `${p}-r`,
            session_id: `${p}-s`,
            agent_id: `${p}-ag`,
            start_time: at(100),
            end_time: at(101),
          }),
          trace(`${p}-b`, { user_id: u, team_id: `${p}-tm`, status: "ERROR", start_time: at(200), end_time: at(205) }),
          trace(`${p}-c`, { user_id: u, workflow_id: `${p}-wf`, start_time: at(300), end_time: at(310) }),
          trace(`${p}-other`, { user_id: `${p}-v`, run_id: `${p}-r`, start_time: at(100) }),
          trace(`${p}-nobody`, { run_id: `${p}-r`, start_time: at(100) }),
        ],
        [],
      );
      const q = async (query: Parameters<typeof db.traces.getTraces>[0]) =>
        ids((await db.traces.getTraces({ user_id: u, ...query })).data);
      expect(await q({})).toEqual([`${p}-c`, `${p}-b`, `${p}-a`]);
      expect(await q({ run_id: `${p}-r` })).toEqual([`${p}-a`]);
      expect(await q({ session_id: `${p}-s` })).toEqual([`${p}-a`]);
      expect(await q({ agent_id: `${p}-ag` })).toEqual([`${p}-a`]);
      expect(await q({ team_id: `${p}-tm` })).toEqual([`${p}-b`]);
      expect(await q({ workflow_id: `${p}-wf` })).toEqual([`${p}-c`]);
      expect(await q({ status: "ERROR" })).toEqual([`${p}-b`]);
      expect(await q({ start_time: at(200) })).toEqual([`${p}-c`, `${p}-b`]);
      expect(await q({ end_time: at(205) })).toEqual([`${p}-b`, `${p}-a`]);
      expect(await q({ start_time: at(150), end_time: at(205) })).toEqual([`${p}-b`]);
      const byRun = await db.traces.getTraces({ run_id: `${p}-r` });
      expect(ids(byRun.data).sort()).toEqual([`${p}-a`, `${p}-nobody`, `${p}-other`]);
    });

    it("sums traces per session: count, first and last creation, latest activity first; no session, no row", async () => {
      const db = c().db;
      const p = prefix();
      const u = `${p}-u`;
      await db.traces.writeTraces(
        [
          trace(`${p}-1`, { user_id: u, session_id: `${p}-s1`, agent_id: "a", created_at: at(10) }),
          trace(`${p}-2`, { user_id: u, session_id: `${p}-s1`, agent_id: "b", created_at: at(30) }),
          trace(`${p}-3`, { user_id: u, session_id: `${p}-s2`, team_id: "t", created_at: at(20) }),
          trace(`${p}-4`, { user_id: u, session_id: `${p}-s3`, workflow_id: "w", created_at: at(40) }),
          trace(`${p}-5`, { user_id: u, created_at: at(50) }),
          trace(`${p}-6`, { user_id: `${p}-v`, session_id: `${p}-s1`, created_at: at(60) }),
        ],
        [],
      );
      const all = await db.traces.getTraceStats({ user_id: u });
      expect(all.total_count).toBe(3);
      expect(all.data).toEqual([
        {
          session_id: `${p}-s3`,
          user_id: u,
          agent_id: null,
          team_id: null,
          workflow_id: "w",
          total_traces: 1,
          first_trace_at: at(40),
          last_trace_at: at(40),
        },
        {
          session_id: `${p}-s1`,
          user_id: u,
          agent_id: "b",
          team_id: null,
          workflow_id: null,
          total_traces: 2,
          first_trace_at: at(10),
          last_trace_at: at(30),
        },
        {
          session_id: `${p}-s2`,
          user_id: u,
          agent_id: null,
          team_id: "t",
          workflow_id: null,
          total_traces: 1,
          first_trace_at: at(20),
          last_trace_at: at(20),
        },
      ]);
      const page2 = await db.traces.getTraceStats({ user_id: u, limit: 2, page: 2 });
      expect(page2.data.map((s) => s.session_id)).toEqual([`${p}-s2`]);
      expect(page2).toMatchObject({ total_count: 3, total_pages: 2 });
      expect((await db.traces.getTraceStats({ user_id: u, agent_id: "a" })).data).toMatchObject([
        { session_id: `${p}-s1`, total_traces: 1, last_trace_at: at(10) },
      ]);
      expect((await db.traces.getTraceStats({ user_id: u, team_id: "t" })).data.map((s) => s.session_id)).toEqual([
        `${p}-s2`,
      ]);
      expect((await db.traces.getTraceStats({ user_id: u, workflow_id: "w" })).data.map((s) => s.session_id)).toEqual([
        `${p}-s3`,
      ]);
      const window = await db.traces.getTraceStats({ user_id: u, start_time: at(15), end_time: at(30) });
      expect(window.data.map((s) => [s.session_id, s.total_traces])).toEqual([
        [`${p}-s1`, 1],
        [`${p}-s2`, 1],
      ]);
      const empty = await db.traces.getTraceStats({ user_id: `${p}-nobody`, limit: 5, page: 2 });
      expect(empty).toMatchObject({ data: [], total_count: 0 });
    });

    it("evaluates agno's filter expressions alike on lists and statistics", async () => {
      const db = c().db;
      const p = prefix();
      const u = `${p}-u`;
      await db.traces.writeTraces(
        [
          trace(`${p}-a`, {
            user_id: u,
            name: "Stock_Agent.run",
            agent_id: "Stock-Agent",
            session_id: `${p}-s`,
            duration_ms: 500,
            start_time: at(1),
            end_time: at(1.5),
          }),
          trace(`${p}-b`, {
            user_id: u,
            name: "Research_Team.run",
            team_id: "research",
            status: "ERROR",
            duration_ms: 1500,
            start_time: at(2),
            end_time: at(3.5),
          }),
          trace(`${p}-c`, {
            user_id: u,
            name: "100%_done.run",
            agent_id: "other",
            session_id: `${p}-s`,
            duration_ms: 2500,
            start_time: at(3),
            end_time: at(5.5),
          }),
        ],
        [],
      );
      const search = async (filter: unknown) =>
        ids(
          (
            await db.traces.getTraces({
              filter: parseTraceFilter({ op: "AND", conditions: [{ op: "EQ", key: "user_id", value: u }, filter] }),
            })
          ).data,
        );
      expect(await search({ op: "EQ", key: "status", value: "ERROR" })).toEqual([`${p}-b`]);
      // NEQ over a column that is NULL matches nothing, as SQL's comparison does
      expect(await search({ op: "NEQ", key: "agent_id", value: "other" })).toEqual([`${p}-a`]);
      expect(await search({ op: "GT", key: "duration_ms", value: 500 })).toEqual([`${p}-c`, `${p}-b`]);
      expect(await search({ op: "GTE", key: "duration_ms", value: 1500 })).toEqual([`${p}-c`, `${p}-b`]);
      expect(await search({ op: "LT", key: "duration_ms", value: 1500.5 })).toEqual([`${p}-b`, `${p}-a`]);
      expect(await search({ op: "LTE", key: "duration_ms", value: 500 })).toEqual([`${p}-a`]);
      expect(await search({ op: "GTE", key: "start_time", value: at(2) })).toEqual([`${p}-c`, `${p}-b`]);
      // an offset is honoured: 13:00:02+01:00 is 12:00:02 UTC
      expect(await search({ op: "LT", key: "start_time", value: "2026-01-01T13:00:02+01:00" })).toEqual([`${p}-a`]);
      expect(await search({ op: "IN", key: "trace_id", values: [`${p}-a`, `${p}-c`, "x"] })).toEqual([
        `${p}-c`,
        `${p}-a`,
      ]);
      expect(await search({ op: "CONTAINS", key: "agent_id", value: "STOCK" })).toEqual([`${p}-a`]);
      // LIKE's wildcards are literal text
      expect(await search({ op: "CONTAINS", key: "name", value: "%_" })).toEqual([`${p}-c`]);
      expect(await search({ op: "CONTAINS", key: "name", value: "_t" })).toEqual([`${p}-b`]);
      expect(await search({ op: "STARTSWITH", key: "name", value: "research" })).toEqual([`${p}-b`]);
      expect(await search({ op: "STARTSWITH", key: "name", value: "%" })).toEqual([]);
      expect(
        await search({
          op: "OR",
          conditions: [
            { op: "EQ", key: "team_id", value: "research" },
            { op: "LT", key: "duration_ms", value: 1000 },
          ],
        }),
      ).toEqual([`${p}-b`, `${p}-a`]);
      expect(await search({ op: "NOT", condition: { op: "EQ", key: "status", value: "ERROR" } })).toEqual([
        `${p}-c`,
        `${p}-a`,
      ]);
      // NOT over a NULL comparison is still unknown: the trace without an agent is in neither answer
      expect(await search({ op: "NOT", condition: { op: "EQ", key: "agent_id", value: "other" } })).toEqual([`${p}-a`]);

      const stats = await db.traces.getTraceStats({
        filter: parseTraceFilter({
          op: "AND",
          conditions: [
            { op: "EQ", key: "user_id", value: u },
            { op: "GT", key: "duration_ms", value: 1000 },
          ],
        }),
      });
      expect(stats.data).toMatchObject([{ session_id: `${p}-s`, total_traces: 1, agent_id: "other" }]);
    });
  });
}
