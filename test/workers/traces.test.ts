/**
 * agno's trace routes over HTTP (os/routers/traces), on traces written through the Db port as the
 * tracer's exporter writes them: the list and its filters, a trace's tree (root → child →
 * grandchild), one span, the per-session sums, the filter-expression search and its schema; and
 * per-user isolation with JWT auth and AGNO_USER_ISOLATION: B never sees A's traces.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../src/index.js";
import { call, isolatedJwt, JSON_BODY } from "./worker-client.js";
import { nestedSpans, traceAt, traceRow, writeTraces } from "./trace-seed.js";

const tag = crypto.randomUUID().slice(0, 8);
const A = `tr-a-${tag}`;
const B = `tr-b-${tag}`;
const ids = {
  a1: `tra1${tag}`,
  a2: `tra2${tag}`,
  a3: `tra3${tag}`,
  b1: `trb1${tag}`,
  nobody: `trn${tag}`,
};
type Who = "A" | "B" | "admin" | "none";
const who: Record<Who, Record<string, string>> = { A: {}, B: {}, admin: {}, none: {} };
let E: Partial<Env>;

const as = (w: Who, method: string, path: string, body?: unknown) =>
  call(path, { method, ...(body === undefined ? {} : { headers: JSON_BODY, body: JSON.stringify(body) }) }, E, who[w]);
const traceIds = (res: { body: { data: Array<{ trace_id: string }> } }) => res.body.data.map((t) => t.trace_id);

beforeAll(async () => {
  const jwt = await isolatedJwt(`traces-${tag}`);
  E = jwt.env;
  who.A = await jwt.bearer(A, ["traces:read"]);
  who.B = await jwt.bearer(B, ["traces:read"]);
  who.admin = await jwt.bearer(`tr-admin-${tag}`, ["agent_os:admin"]);
  who.none = await jwt.bearer(`tr-none-${tag}`, ["sessions:read"]);
  const sA = `${tag}-sa`;
  await writeTraces(
    [
      traceRow(ids.a1, { user_id: A, session_id: sA, run_id: `${ids.a1}-run`, created_at: traceAt(0) }),
      traceRow(ids.a2, {
        user_id: A,
        session_id: sA,
        status: "ERROR",
        team_id: "writing-desk",
        agent_id: null,
        name: "Writing_Desk.run",
        start_time: traceAt(60),
        end_time: traceAt(62),
        duration_ms: 2000,
        created_at: traceAt(60),
      }),
      traceRow(ids.a3, {
        user_id: A,
        session_id: `${tag}-sa2`,
        start_time: traceAt(120),
        end_time: traceAt(120.5),
        duration_ms: 500,
        created_at: traceAt(120),
      }),
      traceRow(ids.b1, { user_id: B, session_id: `${tag}-sb`, start_time: traceAt(30), end_time: traceAt(31) }),
      traceRow(ids.nobody, { session_id: `${tag}-sn`, start_time: traceAt(90), end_time: traceAt(91) }),
    ],
    [
      ...nestedSpans(ids.a1, "what is up, A?"),
      ...nestedSpans(ids.b1, "B's secret question"),
      {
        ...nestedSpans(ids.a2, "team question")[0]!,
        status_code: "ERROR",
        status_message: "the team failed",
        start_time: traceAt(60),
        end_time: traceAt(62),
      },
    ],
  );
});

describe("trace routes", () => {
  it("lists the caller's traces latest first, each with its span counts and root input", async () => {
    const res = await as("A", "GET", "/traces");
    expect(res.status).toBe(200);
    expect(traceIds(res)).toEqual([ids.a3, ids.a2, ids.a1]);
    expect(res.body.meta).toMatchObject({ page: 1, limit: 20, total_pages: 1, total_count: 3 });
    expect(res.body.data[2]).toEqual({
      trace_id: ids.a1,
      name: "Assistant.run",
      status: "OK",
      duration: "1.50s",
      start_time: "2026-03-01T09:00:00Z",
      end_time: "2026-03-01T09:00:01.500000Z",
      total_spans: 3,
      error_count: 0,
      input: "what is up, A?",
      run_id: `${ids.a1}-run`,
      session_id: `${tag}-sa`,
      user_id: A,
      agent_id: "assistant",
      created_at: "2026-03-01T09:00:00Z",
    });
    expect(res.body.data[1]).toMatchObject({
      trace_id: ids.a2,
      error_count: 1,
      duration: "2.00s",
      team_id: "writing-desk",
    });
    expect(res.body.data[0]).not.toHaveProperty("input");
    expect(res.body.data[0].duration).toBe("500ms");
    const paged = await as("A", "GET", "/traces?limit=2&page=2");
    expect(traceIds(paged)).toEqual([ids.a1]);
    expect(paged.body.meta).toMatchObject({ page: 2, limit: 2, total_pages: 2, total_count: 3 });
  });

  it("filters by ids, status and time range; a bad time or page is a 4xx with agno's error body", async () => {
    expect(traceIds(await as("A", "GET", `/traces?session_id=${tag}-sa`))).toEqual([ids.a2, ids.a1]);
    expect(traceIds(await as("A", "GET", `/traces?run_id=${ids.a1}-run`))).toEqual([ids.a1]);
    expect(traceIds(await as("A", "GET", "/traces?status=ERROR"))).toEqual([ids.a2]);
    expect(traceIds(await as("A", "GET", "/traces?team_id=writing-desk"))).toEqual([ids.a2]);
    expect(traceIds(await as("A", "GET", "/traces?agent_id=assistant"))).toEqual([ids.a3, ids.a1]);
    const window = `start_time=${encodeURIComponent("2026-03-01T10:00:30+01:00")}&end_time=2026-03-01T09:01:05Z`;
    expect(traceIds(await as("A", "GET", `/traces?${window}`))).toEqual([ids.a2]);
    for (const q of ["start_time=yesterday", "end_time=2026-13-01T00:00:00Z"]) {
      const bad = await as("A", "GET", `/traces?${q}`);
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({
        detail: expect.stringMatching(/^Invalid (start|end)_time format/),
        error_id: "bad_request",
      });
    }
    for (const q of ["page=0", "limit=0", "limit=101", "page=x"]) {
      const bad = await as("A", "GET", `/traces?${q}`);
      expect(bad.status, q).toBe(422);
      expect(bad.body).toMatchObject({ detail: expect.any(String), error_id: "validation_error" });
    }
  });

  it("answers a trace with its tree nested root → model call → tool, and the root's input and output", async () => {
    const res = await as("A", "GET", `/traces/${ids.a1}`);
    expect(res.status).toBe(200);
    const { tree, ...detail } = res.body;
    expect(detail).toMatchObject({
      trace_id: ids.a1,
      input: "what is up, A?",
      output: "answer to what is up, A?",
      total_spans: 3,
      user_id: A,
    });
    expect(detail).not.toHaveProperty("error");
    expect(tree).toEqual([
      {
        id: `${ids.a1}-root`,
        name: "Assistant.run",
        type: "AGENT",
        duration: "1.50s",
        start_time: "2026-03-01T09:00:00Z",
        end_time: "2026-03-01T09:00:01.500000Z",
        status: "OK",
        metadata: { total_input_tokens: 12, total_output_tokens: 7 },
        spans: [
          {
            id: `${ids.a1}-llm`,
            name: "gpt-test.invoke",
            type: "LLM",
            duration: "1.10s",
            start_time: "2026-03-01T09:00:00.100000Z",
            end_time: "2026-03-01T09:00:01.200000Z",
            status: "OK",
            input: "what is up, A?",
            output: "calling a tool",
            metadata: { model: "gpt-test", input_tokens: 12, output_tokens: 7 },
            spans: [
              {
                id: `${ids.a1}-tool`,
                name: "lookup",
                type: "TOOL",
                duration: "50ms",
                start_time: "2026-03-01T09:00:00.200000Z",
                end_time: "2026-03-01T09:00:00.250000Z",
                status: "OK",
                output: "found",
                metadata: { tool_name: "lookup", parameters: '{"q":"x"}' },
              },
            ],
          },
        ],
      },
    ]);
    const failed = await as("A", "GET", `/traces/${ids.a2}`);
    expect(failed.body).toMatchObject({ status: "ERROR", error: "the team failed", error_count: 1 });
    expect(failed.body).not.toHaveProperty("output");
  });

  it("answers one span of a trace with span_id; a span of another trace, or none, is a 404; run_id does not displace the path's trace", async () => {
    const span = await as("A", "GET", `/traces/${ids.a1}?span_id=${ids.a1}-tool`);
    expect(span.status).toBe(200);
    expect(span.body).toMatchObject({ id: `${ids.a1}-tool`, type: "TOOL", metadata: { tool_name: "lookup" } });
    expect(span.body).not.toHaveProperty("spans");
    const llm = await as("A", "GET", `/traces/${ids.a1}?span_id=${ids.a1}-llm`);
    expect(llm.body).toMatchObject({ id: `${ids.a1}-llm`, input: "what is up, A?" });
    for (const q of [`span_id=${ids.a2}-root`, "span_id=no-such-span"]) {
      const res = await as("A", "GET", `/traces/${ids.a1}?${q}`);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ detail: expect.any(String), error_id: "not_found" });
    }
    // agno looks the trace up by its id first: a run_id beside it names the same trace or is not consulted
    expect((await as("A", "GET", `/traces/${ids.a1}?run_id=${ids.a1}-run`)).body.trace_id).toBe(ids.a1);
    expect((await as("A", "GET", `/traces/${ids.a3}?run_id=${ids.a1}-run`)).body.trace_id).toBe(ids.a3);
    expect((await as("A", "GET", `/traces/no-such-trace-${tag}`)).status).toBe(404);
  });

  it("sums the caller's traces per session, latest activity first", async () => {
    const res = await as("A", "GET", "/trace_session_stats");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [
        {
          session_id: `${tag}-sa2`,
          user_id: A,
          agent_id: "assistant",
          total_traces: 1,
          first_trace_at: "2026-03-01T09:02:00Z",
          last_trace_at: "2026-03-01T09:02:00Z",
        },
        {
          session_id: `${tag}-sa`,
          user_id: A,
          agent_id: "assistant",
          team_id: "writing-desk",
          total_traces: 2,
          first_trace_at: "2026-03-01T09:00:00Z",
          last_trace_at: "2026-03-01T09:01:00Z",
        },
      ],
      meta: { page: 1, limit: 20, total_pages: 1, total_count: 2, search_time_ms: expect.any(Number) },
    });
    const windowed = await as("A", "GET", "/trace_session_stats?end_time=2026-03-01T09:00:30Z");
    expect(windowed.body.data).toMatchObject([{ session_id: `${tag}-sa`, total_traces: 1 }]);
    expect((await as("A", "GET", "/trace_session_stats?start_time=nope")).status).toBe(400);
  });

  it("searches with agno's filter expression, as traces with their trees or as session sums", async () => {
    const runs = await as("A", "POST", "/traces/search", {
      filter: {
        op: "OR",
        conditions: [
          { op: "EQ", key: "status", value: "ERROR" },
          { op: "CONTAINS", key: "trace_id", value: ids.a1.toUpperCase() },
        ],
      },
    });
    expect(runs.status).toBe(200);
    expect(traceIds(runs)).toEqual([ids.a2, ids.a1]);
    expect(runs.body.data[1].tree[0].spans[0].spans[0].id).toBe(`${ids.a1}-tool`);
    expect(runs.body.meta).toMatchObject({ page: 1, limit: 20, total_count: 2 });
    const sessions = await as("A", "POST", "/traces/search", {
      filter: { op: "GTE", key: "duration_ms", value: 1000 },
      group_by: "session",
    });
    expect(sessions.body.data).toMatchObject([{ session_id: `${tag}-sa`, total_traces: 2 }]);
    const everything = await as("A", "POST", "/traces/search", { limit: 1, page: 3 });
    expect(traceIds(everything)).toEqual([ids.a1]);
    expect(everything.body.meta).toMatchObject({ total_count: 3, total_pages: 3 });
    for (const filter of [
      { op: "LIKE", key: "status", value: "OK" },
      { op: "EQ", key: "secret_column", value: "x" },
      { op: "AND", conditions: [] },
      { op: "GT", key: "start_time", value: "last week" },
      { key: "status", value: "OK" },
    ]) {
      const res = await as("A", "POST", "/traces/search", { filter });
      expect(res.status, JSON.stringify(filter)).toBe(400);
      expect(res.body).toMatchObject({
        detail: expect.stringMatching(/^Invalid filter expression/),
        error_id: "bad_request",
      });
    }
    for (const body of [{ limit: 101 }, { page: 0 }, { group_by: "user" }, { filter: "status = OK" }]) {
      const res = await as("A", "POST", "/traces/search", body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body).toMatchObject({ detail: expect.any(String), error_id: "validation_error" });
    }
  });

  it("describes the filterable fields and their operators", async () => {
    const res = await as("A", "GET", "/traces/filter-schema");
    expect(res.status).toBe(200);
    expect(res.body.logical_operators).toEqual(["AND", "OR"]);
    expect(res.body.fields.map((f: { key: string }) => f.key)).toEqual([
      "status",
      "user_id",
      "agent_id",
      "team_id",
      "workflow_id",
      "session_id",
      "run_id",
      "name",
      "trace_id",
      "duration_ms",
      "start_time",
      "end_time",
      "created_at",
    ]);
    expect(res.body.fields[0]).toEqual({
      key: "status",
      label: "Status",
      type: "enum",
      operators: ["EQ", "NEQ", "IN"],
      values: ["OK", "ERROR"],
    });
    // every operator the schema offers is one the search takes
    for (const field of res.body.fields as Array<{ key: string; type: string; operators: string[] }>) {
      for (const op of field.operators) {
        const value = field.type === "number" ? 1 : field.type === "datetime" ? traceAt(0) : "OK";
        const clause = op === "IN" ? { op, key: field.key, values: [value] } : { op, key: field.key, value };
        const res = await as("A", "POST", "/traces/search", { filter: clause });
        expect(res.status, `${field.key} ${op}`).toBe(200);
      }
    }
  });
});

describe("trace isolation", () => {
  it("B never sees A's traces: not listed, not searched, not summed, and A's trace or span is a 404", async () => {
    for (const q of ["", `?user_id=${A}`, `?run_id=${ids.a1}-run`, `?session_id=${tag}-sa`]) {
      expect(traceIds(await as("B", "GET", `/traces${q}`))).toEqual(
        q === "" || q.startsWith("?user_id") ? [ids.b1] : [],
      );
    }
    for (const path of [`/traces/${ids.a1}`, `/traces/${ids.a1}?span_id=${ids.a1}-root`, `/traces/${ids.nobody}`]) {
      const res = await as("B", "GET", path);
      expect(res.status, path).toBe(404);
      expect(res.body).toMatchObject({ detail: "Trace not found", error_id: "not_found" });
    }
    // A's span named under B's own trace does not belong to it
    expect((await as("B", "GET", `/traces/${ids.b1}?span_id=${ids.a1}-root`)).status).toBe(404);
    const searched = await as("B", "POST", "/traces/search", { filter: { op: "EQ", key: "user_id", value: A } });
    expect(searched.body.data).toEqual([]);
    const everyone = await as("B", "POST", "/traces/search", {
      filter: { op: "STARTSWITH", key: "trace_id", value: "tr" },
    });
    expect(traceIds(everyone)).toEqual([ids.b1]);
    const stats = await as("B", "GET", `/trace_session_stats?user_id=${A}`);
    expect(stats.body.data.map((s: { session_id: string }) => s.session_id)).toEqual([`${tag}-sb`]);
    const grouped = await as("B", "POST", "/traces/search", { group_by: "session" });
    expect(grouped.body.data.map((s: { session_id: string }) => s.session_id)).toEqual([`${tag}-sb`]);
    expect((await as("B", "GET", `/traces/${ids.b1}`)).body.input).toBe("B's secret question");
  });

  it("an admin reads every user's traces; a caller without traces:read is refused", async () => {
    expect(traceIds(await as("admin", "GET", `/traces?user_id=${A}`))).toEqual([ids.a3, ids.a2, ids.a1]);
    expect((await as("admin", "GET", `/traces/${ids.b1}`)).body.user_id).toBe(B);
    expect((await as("admin", "GET", `/traces/${ids.nobody}`)).status).toBe(200);
    for (const [method, path] of [
      ["GET", "/traces"],
      ["GET", `/traces/${ids.a1}`],
      ["GET", "/trace_session_stats"],
      ["POST", "/traces/search"],
      ["GET", "/traces/filter-schema"],
    ] as const) {
      expect((await as("none", method, path, method === "POST" ? {} : undefined)).status, path).toBe(403);
    }
  });
});
