import { afterEach, describe, expect, it, vi } from "vitest";
import type { Db, MetricsBucket } from "../../src/db/port.js";
import type { RunRecord, SessionRecord } from "../../src/db/types.js";

/** Epoch seconds at noon (UTC) of a day of January 2001: days no other suite writes sessions on. */
const jan = (day: number) => Date.UTC(2001, 0, day, 12) / 1000;
const DAYS = { d1: "2001-01-01", d2: "2001-01-02", d3: "2001-01-03" };

/**
 * The clock the adapters stamp rows with, moved forward only: the suite's database is shared,
 * so each step's writes must be later than every refresh before it.
 */
let clock = Date.UTC(2040, 0, 1) / 1000;
const advance = (seconds: number) => {
  clock += seconds;
  vi.setSystemTime(clock * 1000);
  return clock;
};

interface SeedRun {
  model?: string;
  provider?: string;
  metrics: Record<string, number>;
}

const tokens = (input: number, output: number, extra: Record<string, number> = {}) => ({
  input_tokens: input,
  output_tokens: output,
  total_tokens: input + output,
  ...extra,
});

async function seed(
  db: Db,
  session: { id: string; type: "agent" | "team" | "workflow"; user: string | null; day: number },
  runs: SeedRun[],
): Promise<void> {
  const owner = { agent: { agent_id: "ops" }, team: { team_id: "crew" }, workflow: { workflow_id: "flow" } }[
    session.type
  ];
  await db.upsertSession({
    session_id: session.id,
    session_type: session.type,
    user_id: session.user,
    created_at: jan(session.day),
    ...owner,
  } as SessionRecord);
  for (const [i, r] of runs.entries()) await db.upsertRun(runOf(`${session.id}-r${i}`, session, r));
}

const runOf = (
  runId: string,
  session: { id: string; user: string | null; day: number; type: "agent" | "team" | "workflow" },
  r: SeedRun,
): RunRecord =>
  ({
    run_id: runId,
    session_id: session.id,
    ...{ agent: { agent_id: "ops" }, team: { team_id: "crew" }, workflow: { workflow_id: "flow" } }[session.type],
    user_id: session.user,
    status: "COMPLETED",
    messages: [],
    created_at: jan(session.day) + 60,
    ...(r.model !== undefined && { model: r.model, model_provider: r.provider }),
    metrics: r.metrics,
  }) as RunRecord;

const ZERO_TOKENS = {
  input_tokens: 0,
  output_tokens: 0,
  total_tokens: 0,
  audio_total_tokens: 0,
  audio_input_tokens: 0,
  audio_output_tokens: 0,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  reasoning_tokens: 0,
  cost: 0,
};

const COUNTS_ZERO = {
  agent_runs_count: 0,
  team_runs_count: 0,
  workflow_runs_count: 0,
  agent_sessions_count: 0,
  team_sessions_count: 0,
  workflow_sessions_count: 0,
};

/** A bucket as the suite expects it, from the hand-counted figures. */
const bucket = (
  userId: string,
  date: string,
  counts: Partial<typeof COUNTS_ZERO>,
  tokenMetrics: Partial<typeof ZERO_TOKENS>,
  models: MetricsBucket["model_metrics"],
) => ({
  id: expect.any(String),
  user_id: userId,
  date,
  aggregation_period: "daily",
  ...COUNTS_ZERO,
  ...counts,
  users_count: userId === "" ? 0 : 1,
  token_metrics: { ...ZERO_TOKENS, ...tokenMetrics },
  model_metrics: models,
  completed: true,
  created_at: expect.any(Number),
  updated_at: expect.any(Number),
});

/**
 * agno's metrics buckets (issue 23), part of the Db contract: `c()` is the suite's shared
 * database. Two users' sessions and runs over three days, refreshed, give the hand-counted
 * buckets; a refresh recounts only the days written since the last one; one owner's read holds
 * none of another's buckets.
 */
export function describeMetricsStoreContract(c: () => { db: Db }): void {
  describe("metrics buckets", () => {
    afterEach(() => void vi.useRealTimers());

    it("counts two users' runs over three days; recounts only a day written since; reads one owner's buckets", async () => {
      const db = c().db;
      vi.useFakeTimers({ toFake: ["Date"] });
      const tag = Math.random().toString(36).slice(2, 8);
      const a = `metrics-a-${tag}`;
      const b = `metrics-b-${tag}`;
      advance(3600);
      await seed(db, { id: `${tag}-a1`, type: "agent", user: a, day: 1 }, [
        { model: "gpt-4o", provider: "OpenAI", metrics: { ...tokens(10, 5), cost: 0.25 } },
        { model: "gpt-4o", provider: "OpenAI", metrics: tokens(20, 10, { cache_read_tokens: 4 }) },
      ]);
      const teamSession = { id: `${tag}-a2`, type: "team" as const, user: a, day: 2 };
      await seed(db, teamSession, [
        { model: "claude", provider: "Anthropic", metrics: { ...tokens(7, 3), cost: 0.5 } },
      ]);
      await seed(db, { id: `${tag}-b2`, type: "agent", user: b, day: 2 }, [
        { model: "gpt-4o", provider: "OpenAI", metrics: tokens(100, 50, { reasoning_tokens: 5 }) },
        { model: "gpt-4o-mini", provider: "OpenAI", metrics: tokens(1, 1) },
      ]);
      await seed(db, { id: `${tag}-b3`, type: "workflow", user: b, day: 3 }, [{ metrics: tokens(2, 2) }]);
      await seed(db, { id: `${tag}-b3-empty`, type: "agent", user: b, day: 3 }, []);

      const first = advance(600);
      const written = await db.metrics.refresh();
      const ours = (rows: MetricsBucket[]) => rows.filter((r) => r.user_id === a || r.user_id === b);
      expect(ours(written)).toHaveLength(4);
      const range = { startingDate: DAYS.d1, endingDate: DAYS.d3 };
      const all = ours((await db.metrics.list(range)).buckets);
      const expected = {
        a1: bucket(
          a,
          DAYS.d1,
          { agent_sessions_count: 1, agent_runs_count: 2 },
          { ...tokens(30, 15), cache_read_tokens: 4, cost: 0.25 },
          [{ model_id: "gpt-4o", model_provider: "OpenAI", count: 2, cost: 0.25 }],
        ),
        a2: bucket(a, DAYS.d2, { team_sessions_count: 1, team_runs_count: 1 }, { ...tokens(7, 3), cost: 0.5 }, [
          { model_id: "claude", model_provider: "Anthropic", count: 1, cost: 0.5 },
        ]),
        b2: bucket(
          b,
          DAYS.d2,
          { agent_sessions_count: 1, agent_runs_count: 2 },
          { ...tokens(101, 51), reasoning_tokens: 5 },
          [
            { model_id: "gpt-4o", model_provider: "OpenAI", count: 1, cost: 0 },
            { model_id: "gpt-4o-mini", model_provider: "OpenAI", count: 1, cost: 0 },
          ],
        ),
        b3: bucket(
          b,
          DAYS.d3,
          { agent_sessions_count: 1, workflow_sessions_count: 1, workflow_runs_count: 1 },
          tokens(2, 2),
          [],
        ),
      };
      expect(all).toEqual([expected.a1, expected.a2, expected.b2, expected.b3]);
      expect(all.every((r) => r.updated_at === first && r.created_at === first)).toBe(true);

      // A second refresh with nothing written since recounts nothing of ours.
      advance(600);
      expect(ours(await db.metrics.refresh())).toEqual([]);

      // A late run in A's day-2 session: day 2 is recounted, days 1 and 3 keep their rows as they were.
      const late = advance(600);
      await db.upsertRun(
        runOf(`${tag}-a2-late`, teamSession, { model: "claude", provider: "Anthropic", metrics: tokens(1, 1) }),
      );
      const second = advance(60);
      const rewritten = ours(await db.metrics.refresh());
      expect(rewritten.map((r) => [r.user_id, r.date])).toEqual([
        [a, DAYS.d2],
        [b, DAYS.d2],
      ]);
      expect(late).toBeLessThan(second);
      const after = ours((await db.metrics.list(range)).buckets);
      const byKey = (rows: MetricsBucket[]) => new Map(rows.map((r) => [`${r.user_id} ${r.date}`, r]));
      const before = byKey(all);
      for (const row of after) {
        const old = before.get(`${row.user_id} ${row.date}`)!;
        expect(row.id).toBe(old.id);
        expect(row.created_at).toBe(first);
        expect(row.updated_at).toBe(row.date === DAYS.d2 ? second : first);
      }
      expect(byKey(after).get(`${a} ${DAYS.d2}`)).toMatchObject({
        team_runs_count: 2,
        token_metrics: { ...ZERO_TOKENS, ...tokens(8, 4), cost: 0.5 },
        model_metrics: [{ model_id: "claude", model_provider: "Anthropic", count: 2, cost: 0.5 }],
      });

      // One owner's read: only their buckets, the latest update of their own.
      const ofB = await db.metrics.list({ userId: b, ...range });
      expect(ofB.buckets).toEqual([
        { ...expected.b2, updated_at: second },
        { ...expected.b3, updated_at: first },
      ]);
      expect(ofB.updatedAt).toBe(second);
      const ofA = await db.metrics.list({ userId: a, startingDate: DAYS.d1, endingDate: DAYS.d1 });
      expect(ofA.buckets.map((r) => [r.user_id, r.date])).toEqual([[a, DAYS.d1]]);
      expect(ofA.updatedAt).toBe(second);
      expect(await db.metrics.list({ userId: `${a}-nobody` })).toEqual({ buckets: [], updatedAt: null });
    });

    it("a recounted day drops the bucket of an owner whose sessions are gone", async () => {
      const db = c().db;
      vi.useFakeTimers({ toFake: ["Date"] });
      const tag = Math.random().toString(36).slice(2, 8);
      const [gone, kept] = [`metrics-gone-${tag}`, `metrics-kept-${tag}`];
      advance(3600);
      await seed(db, { id: `${tag}-gone`, type: "agent", user: gone, day: 5 }, [{ metrics: tokens(1, 1) }]);
      const keptSession = { id: `${tag}-kept`, type: "agent" as const, user: kept, day: 5 };
      await seed(db, keptSession, [{ metrics: tokens(2, 2) }]);
      advance(600);
      await db.metrics.refresh();
      const day5 = { startingDate: "2001-01-05", endingDate: "2001-01-05" };
      const owners = async () =>
        (await db.metrics.list(day5)).buckets.map((b) => b.user_id).filter((u) => u === gone || u === kept);
      expect(await owners()).toEqual([gone, kept]);
      await db.deleteSession(`${tag}-gone`);
      advance(600);
      await db.upsertRun(runOf(`${tag}-kept-r9`, keptSession, { metrics: tokens(3, 3) }));
      advance(60);
      await db.metrics.refresh();
      expect(await owners()).toEqual([kept]);
      expect((await db.metrics.list({ ...day5, userId: kept })).buckets[0]).toMatchObject({
        agent_runs_count: 2,
        token_metrics: { input_tokens: 5, output_tokens: 5, total_tokens: 10 },
      });
    });

    it("marks today's buckets incomplete, then complete once a refresh runs after the day ended", async () => {
      const db = c().db;
      vi.useFakeTimers({ toFake: ["Date"] });
      const now = advance(86_400);
      const user = `metrics-today-${Math.random().toString(36).slice(2, 8)}`;
      const today = new Date(now * 1000).toISOString().slice(0, 10);
      await db.upsertSession({
        session_id: `${user}-s`,
        session_type: "agent",
        agent_id: "ops",
        user_id: user,
        created_at: now,
      } as SessionRecord);
      advance(1);
      const [row] = (await db.metrics.refresh()).filter((r) => r.user_id === user);
      expect(row).toMatchObject({ date: today, agent_sessions_count: 1, completed: false });
      const nextDay = advance(86_400);
      const [done] = (await db.metrics.refresh()).filter((r) => r.user_id === user);
      expect(done).toMatchObject({ date: today, agent_sessions_count: 1, completed: true, updated_at: nextDay });
    });
  });
}
