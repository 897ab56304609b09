/**
 * agno's metrics over HTTP (issue 23): two users' sessions and runs on three days, refreshed,
 * read back against hand-counted totals; under user isolation B never sees A's numbers, whatever
 * `user_id` B names, and an admin reads each day deployment-wide or one user's buckets. Rows are
 * seeded in the database on days of January 2002 (created_at set), which no other file uses.
 */
import { env } from "cloudflare:workers";
import { createScheduledController } from "cloudflare:test";
import { Pool } from "@neondatabase/serverless";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import worker from "../../src/index.js";
import type { Env } from "../../src/index.js";
import { useLocalWsProxy } from "../../src/db/postgres/local-proxy.js";
import { call, isolatedJwt, send } from "./worker-client.js";

const tag = crypto.randomUUID().slice(0, 8);
const A = `metrics-a-${tag}`;
const B = `metrics-b-${tag}`;
const jan = (day: number) => Date.UTC(2002, 0, day, 9) / 1000;
const D1 = "2002-01-01";
const D2 = "2002-01-02";
const D3 = "2002-01-03";
const RANGE = `starting_date=${D1}&ending_date=${D3}`;

let pool: Pool;
let E: Partial<Env>;
const who: Record<"A" | "B" | "admin", Record<string, string>> = { A: {}, B: {}, admin: {} };

async function session(id: string, user: string | null, day: number) {
  const now = Math.floor(Date.now() / 1000);
  await pool.query(
    `INSERT INTO ai.agno_sessions (session_id, session_type, agent_id, user_id, created_at, updated_at)
     VALUES ($1, 'agent', 'assistant', $2, $3, $4)`,
    [id, user, jan(day), now],
  );
}

async function run(id: string, sessionId: string, user: string | null, day: number, data: Record<string, unknown>) {
  const now = Math.floor(Date.now() / 1000);
  const runData = {
    run_id: id,
    session_id: sessionId,
    agent_id: "assistant",
    user_id: user,
    status: "COMPLETED",
    ...data,
  };
  await pool.query(
    `INSERT INTO ai.agno_runs (run_id, session_id, run_type, agent_id, user_id, status, run_index, run_data, created_at, updated_at)
     VALUES ($1, $2, 'agent', 'assistant', $3, 'COMPLETED', 0, $4::jsonb, $5, $6)`,
    [id, sessionId, user, JSON.stringify(runData), jan(day) + 60, now],
  );
  await pool.query(`UPDATE ai.agno_sessions SET updated_at = $2 WHERE session_id = $1`, [sessionId, now]);
}

const usage = (input: number, output: number, cost?: number) => ({
  metrics: {
    input_tokens: input,
    output_tokens: output,
    total_tokens: input + output,
    ...(cost !== undefined && { cost }),
  },
});
const gpt = { model: "gpt-4o", model_provider: "OpenAI" };
const claude = { model: "claude-sonnet", model_provider: "Anthropic" };

async function req(as: "A" | "B" | "admin", method: string, path: string) {
  const res = await send(path, { method }, E, who[as]);
  const text = await res.text();
  return { status: res.status, text, body: text ? JSON.parse(text) : null };
}

type Day = Record<string, unknown> & { id: string; date: string };

beforeAll(async () => {
  useLocalWsProxy(env.DB_WS_PROXY);
  pool = new Pool({ connectionString: env.DATABASE_URL });
  const jwt = await isolatedJwt("metrics");
  E = jwt.env;
  who.A = await jwt.bearer(A, ["metrics:read", "metrics:write"]);
  who.B = await jwt.bearer(B, ["metrics:read", "metrics:write"]);
  who.admin = await jwt.bearer(`metrics-admin-${tag}`, ["agent_os:admin"]);
  await call("/sessions?limit=1"); // the tables exist
  // A: day 1, two gpt-4o runs; day 2, one claude run. B: day 2, one gpt-4o run; day 3, one run without a model.
  await session(`${tag}-a1`, A, 1);
  await run(`${tag}-a1-r1`, `${tag}-a1`, A, 1, { ...gpt, ...usage(100, 40, 0.02) });
  await run(`${tag}-a1-r2`, `${tag}-a1`, A, 1, { ...gpt, ...usage(60, 20, 0.01) });
  await session(`${tag}-a2`, A, 2);
  await run(`${tag}-a2-r1`, `${tag}-a2`, A, 2, { ...claude, ...usage(30, 10, 0.5) });
  await session(`${tag}-b2`, B, 2);
  await run(`${tag}-b2-r1`, `${tag}-b2`, B, 2, { ...gpt, ...usage(7, 3) });
  await session(`${tag}-b3`, B, 3);
  await run(`${tag}-b3-r1`, `${tag}-b3`, B, 3, usage(5, 5));
});

afterAll(async () => {
  await pool.end();
});

const tokens = (input: number, output: number, cost = 0) =>
  expect.objectContaining({ input_tokens: input, output_tokens: output, total_tokens: input + output, cost });

describe("metrics over HTTP", () => {
  it("a refresh counts two users over three days; an admin reads each day deployment-wide and one user's buckets", async () => {
    const refreshed = await req("admin", "POST", "/metrics/refresh");
    expect(refreshed.status, refreshed.text).toBe(200);
    expect(refreshed.body.map((d: Day) => d.date)).toEqual(
      expect.arrayContaining([`${D1}T00:00:00Z`, `${D3}T00:00:00Z`]),
    );

    const all = await req("admin", "GET", `/metrics?${RANGE}`);
    expect(all.status).toBe(200);
    expect(all.body.metrics).toEqual([
      expect.objectContaining({
        id: `${D1}_daily`,
        date: `${D1}T00:00:00Z`,
        agent_sessions_count: 1,
        agent_runs_count: 2,
        users_count: 1,
        token_metrics: tokens(160, 60, 0.03),
        model_metrics: [{ model_id: "gpt-4o", model_provider: "OpenAI", count: 2, cost: 0.03 }],
      }),
      expect.objectContaining({
        id: `${D2}_daily`,
        agent_sessions_count: 2,
        agent_runs_count: 2,
        users_count: 2,
        token_metrics: tokens(37, 13, 0.5),
        model_metrics: expect.arrayContaining([
          { model_id: "claude-sonnet", model_provider: "Anthropic", count: 1, cost: 0.5 },
          { model_id: "gpt-4o", model_provider: "OpenAI", count: 1, cost: 0 },
        ]),
      }),
      expect.objectContaining({
        id: `${D3}_daily`,
        agent_runs_count: 1,
        users_count: 1,
        token_metrics: tokens(5, 5),
        model_metrics: [],
      }),
    ]);
    expect(all.body.updated_at).toEqual(expect.stringMatching(/Z$/));

    const ofA = await req("admin", "GET", `/metrics?${RANGE}&user_id=${A}`);
    expect(ofA.body.metrics.map((d: Day) => [d.id, d.agent_runs_count])).toEqual([
      [`${D1}_${A}_daily`, 2],
      [`${D2}_${A}_daily`, 1],
    ]);
    expect(ofA.body.metrics[1].token_metrics).toEqual(tokens(30, 10, 0.5));
  });

  it("under isolation B reads only B's buckets, whatever user_id B names; A reads only A's", async () => {
    for (const query of [RANGE, `${RANGE}&user_id=${A}`]) {
      const ofB = await req("B", "GET", `/metrics?${query}`);
      expect(ofB.status).toBe(200);
      expect(ofB.body.metrics.map((d: Day) => [d.id, d.agent_runs_count, d.users_count])).toEqual([
        [`${D2}_${B}_daily`, 1, 1],
        [`${D3}_${B}_daily`, 1, 1],
      ]);
      expect(ofB.body.metrics[0].token_metrics).toEqual(tokens(7, 3));
      expect(ofB.text).not.toContain(A);
      expect(ofB.text).not.toContain("claude-sonnet");
    }
    const ofA = await req("A", "GET", `/metrics?${RANGE}&user_id=${B}`);
    expect(ofA.body.metrics.map((d: Day) => d.id)).toEqual([`${D1}_${A}_daily`, `${D2}_${A}_daily`]);
    expect(ofA.text).not.toContain(B);
  });

  it("a refresh recounts the days written since; B's refresh answers B's buckets only", async () => {
    await run(`${tag}-a1-late`, `${tag}-a1`, A, 1, { ...gpt, ...usage(1, 1) });
    await run(`${tag}-b3-late`, `${tag}-b3`, B, 3, { ...claude, ...usage(2, 2, 0.25) });
    const byB = await req("B", "POST", "/metrics/refresh");
    expect(byB.status).toBe(200);
    expect(byB.text).not.toContain(A);
    // Every bucket it answers is B's (days written within the last refresh's grace are recounted too).
    expect(byB.body.every((d: Day) => d.id.endsWith(`_${B}_daily`))).toBe(true);
    expect(byB.body.find((d: Day) => d.date === `${D3}T00:00:00Z`)).toMatchObject({
      agent_runs_count: 2,
      token_metrics: tokens(7, 7, 0.25),
    });
    const ofA = await req("A", "GET", `/metrics?starting_date=${D1}&ending_date=${D1}`);
    expect(ofA.body.metrics).toEqual([
      expect.objectContaining({ agent_runs_count: 3, token_metrics: tokens(161, 61, 0.03) }),
    ]);
    const status = await req("B", "GET", "/metrics/refresh/status");
    expect(status.body).toMatchObject({ status: "completed", error: null, started_at: expect.any(String) });
  });

  it("bad dates and a range that ends before it starts are 4xx {detail, error_id}", async () => {
    for (const [query, status] of [
      ["starting_date=2002-13-01", 422],
      ["ending_date=yesterday", 422],
      ["starting_date=2002-01-03&ending_date=2002-01-01", 400],
      ["starting_date=2002-01-01T00:00:00Z", 422],
    ] as const) {
      const res = await req("admin", "GET", `/metrics?${query}`);
      expect({ query, status: res.status }).toEqual({ query, status });
      expect(res.body).toMatchObject({ detail: expect.any(String), error_id: expect.any(String) });
    }
    const noScope = await req("admin", "GET", "/metrics?db_id=nope");
    expect(noScope.status).toBe(404);
  });

  it("without metrics:write a refresh is refused; without metrics:read a read is", async () => {
    const jwt = await isolatedJwt("metrics-scopes");
    const reader = await jwt.bearer(A, ["metrics:read"]);
    const refused = await send("/metrics/refresh", { method: "POST" }, jwt.env, reader);
    expect(refused.status).toBe(403);
    const none = await jwt.bearer(A, ["sessions:read"]);
    expect((await send("/metrics", {}, jwt.env, none)).status).toBe(403);
  });
});

it("the cron trigger refreshes the metrics of the days written since the last refresh", async () => {
  const day = (n: number) => Date.UTC(2002, 1, n, 9) / 1000;
  const id = `${tag}-cron`;
  const now = Math.floor(Date.now() / 1000);
  await pool.query(
    `INSERT INTO ai.agno_sessions (session_id, session_type, agent_id, user_id, created_at, updated_at) VALUES ($1, 'agent', 'assistant', $2, $3, $4)`,
    [id, A, day(5), now],
  );
  await worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" }), env);
  const read = await req("admin", "GET", `/metrics?starting_date=2002-02-05&ending_date=2002-02-05&user_id=${A}`);
  expect(read.body.metrics).toEqual([
    expect.objectContaining({ id: `2002-02-05_${A}_daily`, agent_sessions_count: 1, agent_runs_count: 0 }),
  ]);
});
