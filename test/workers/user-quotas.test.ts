/**
 * Per-user caps over HTTP (issue 15: one user filled the shared queue and others got 429): two JWT
 * users, one at a cap gets 429 `quota_exceeded` with Retry-After, the other is served. The
 * workers test files share the `ai` schema, so users carry a per-run tag.
 */
import { env } from "cloudflare:workers";
import { waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { Env } from "../../src/index.js";
import { scriptModel } from "../support/model-script.js";
import { until } from "../support/until.js";
import { call, isolatedJwt, JSON_BODY, upgradeSocket } from "./worker-client.js";

const tag = crypto.randomUUID().slice(0, 8);
const A = `quota-a-${tag}`;
const B = `quota-b-${tag}`;
const HEAVY = `quota-heavy-${tag}`;
const LIGHT = `quota-light-${tag}`;
const FILLER = `quota-filler-${tag}`;
/** Jobs the queue object runs at once (AGNO_BACKGROUND_MAX_CONCURRENCY's default: the object sees the suite's bindings only). */
const SLOTS = 32;
const SCOPES = ["schedules:read", "schedules:write", "schedules:delete", "agents:read", "agents:run"];
const CAPS = { AGNO_USER_MAX_SCHEDULES: "2", AGNO_USER_MAX_JOBS: "2", AGNO_USER_MAX_WEBSOCKETS: "2" };
let E: Partial<Env>;
/** The same JWT deployment with the default caps. */
let uncapped: Partial<Env>;
const who: Record<string, Record<string, string>> = {};

const as = (user: string, method: string, path: string, body?: unknown) =>
  call(
    path,
    { method, ...(body === undefined ? {} : { headers: JSON_BODY, body: JSON.stringify(body) }) },
    E,
    who[user],
  );

function expectQuota(
  res: { status: number; headers: Headers; body: { error_id: string; detail: string } },
  cap: RegExp,
) {
  expect(res.status).toBe(429);
  expect(res.body).toMatchObject({ error_id: "quota_exceeded", detail: expect.stringMatching(cap) });
  expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
}

describe("per-user quotas over HTTP", () => {
  beforeAll(async () => {
    const jwt = await isolatedJwt(`quotas-${tag}`);
    E = { ...jwt.env, ...CAPS };
    uncapped = jwt.env;
    for (const user of [A, B, HEAVY, LIGHT, FILLER]) who[user] = await jwt.bearer(user, SCOPES);
  });

  it("answers 429 to a user at the schedule cap, and still creates another user's", async () => {
    const schedule = (name: string) => ({
      name: `${name}-${tag}`,
      cron_expr: "0 3 29 2 *",
      endpoint: "/agents/assistant/runs",
      payload: { message: "hi" },
    });
    expect((await as(A, "POST", "/schedules", schedule("one"))).status).toBe(201);
    expect((await as(A, "POST", "/schedules", schedule("two"))).status).toBe(201);
    expectQuota(await as(A, "POST", "/schedules", schedule("three")), /per-user schedule cap \(2 /);
    expect((await as(B, "POST", "/schedules", schedule("one"))).status).toBe(201);
    expect((await as(A, "GET", "/schedules")).body.meta.total_count).toBe(2);
  });

  it("answers 429 to a user with as many background jobs waiting or running as the cap, and 202 to another user", async () => {
    // The queue object's model: A's two runs hang (their jobs stay RUNNING), B's answers.
    await scriptModel(
      env.MODEL_SERVER_URL,
      [{ hang: true }, { hang: true }, { text: "B's run" }, { text: "A's next run" }],
      { channel: "queue" },
    );
    const background = (message: string) => ({ message, background: true, stream: false });
    const held = [
      await as(A, "POST", "/agents/assistant/runs", background("one")),
      await as(A, "POST", "/agents/assistant/runs", background("two")),
    ];
    expect(held.map((r) => r.status)).toEqual([202, 202]);
    for (const r of held)
      await until(
        () => as(A, "GET", `/agents/assistant/runs/${r.body.run_id}`),
        (run) => run.body.status === "RUNNING",
        "A's run to start",
      );
    expectQuota(await as(A, "POST", "/agents/assistant/runs", background("three")), /per-user job cap \(2 /);
    const other = await as(B, "POST", "/agents/assistant/runs", background("mine"));
    expect(other.status).toBe(202);
    await until(
      () => as(B, "GET", `/agents/assistant/runs/${other.body.run_id}`),
      (run) => run.body.status === "COMPLETED",
      "B's run to complete",
    );
    // A's place comes back when one of their runs ends.
    expect((await as(A, "POST", `/agents/assistant/runs/${held[0]!.body.run_id}/cancel`)).status).toBe(200);
    await until(
      () => as(A, "GET", `/agents/assistant/runs/${held[0]!.body.run_id}`),
      (run) => run.body.status === "CANCELLED",
      "A's run to be cancelled",
    );
    const next = await until(
      () => as(A, "POST", "/agents/assistant/runs", background("four")),
      (r) => r.status === 202,
      "A's place to come back",
    );
    await as(A, "POST", `/agents/assistant/runs/${held[1]!.body.run_id}/cancel`);
    await until(
      () => as(A, "GET", `/agents/assistant/runs/${next.body.run_id}`),
      (run) => run.body.status === "COMPLETED",
      "A's next run to complete",
    );
  });

  it("answers 429 to a user's WebSocket past the cap, before the upgrade, and opens another user's; a closed socket frees its place", async () => {
    const open = async (user: string) => {
      const { res, ctx } = await upgradeSocket(E, who[user]);
      return {
        res,
        close: async () => {
          res.webSocket!.close(1000, "done");
          await waitOnExecutionContext(ctx);
        },
      };
    };
    const first = await open(A);
    const second = await open(A);
    expect([first.res.status, second.res.status]).toEqual([101, 101]);
    const third = await open(A);
    expectQuota(
      { status: third.res.status, headers: third.res.headers, body: await third.res.json() },
      /per-user WebSocket cap \(2 /,
    );
    const theirs = await open(B);
    expect(theirs.res.status).toBe(101);
    await first.close();
    const again = await open(A);
    expect(again.res.status).toBe(101);
    await Promise.all([second.close(), theirs.close(), again.close()]);
  });

  it("shares a busy queue fairly: a user's job submitted after another user's backlog takes the next free slot but one", async () => {
    await scriptModel(
      env.MODEL_SERVER_URL,
      Array.from({ length: SLOTS + 8 }, () => ({ hang: true })),
      { channel: "queue" },
    );
    const submit = (user: string, message: string) =>
      call(
        "/agents/assistant/runs",
        { method: "POST", headers: JSON_BODY, body: JSON.stringify({ message, background: true, stream: false }) },
        uncapped,
        who[user],
      );
    const jobOf = (id: string) => call(`/queue/jobs/${id}`).then((r) => r.body as { status: string });
    const statusOf = async (accepted: Array<{ body: { job_id: string } }>) =>
      Promise.all(accepted.map((a) => jobOf(a.body.job_id).then((j) => j.status)));
    await until(
      () => call("/queue/stats"),
      (r) => (r.body.counts.running ?? 0) === 0,
      "the queue to be idle",
    );
    // Every slot busy with a run that does not end by itself.
    const fillers = await Promise.all(Array.from({ length: SLOTS }, (_, i) => submit(FILLER, `filler ${i}`)));
    await until(
      () => statusOf(fillers),
      (s) => s.every((x) => x === "running"),
      "every slot to be taken",
    );
    const heavy: Array<Awaited<ReturnType<typeof submit>>> = [];
    for (let i = 0; i < 4; i++) heavy.push(await submit(HEAVY, `backlog ${i}`));
    // Later by a second: the queue's clock is in seconds, and the backlog must be the older.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const light = await submit(LIGHT, "one job");
    expect([...(await statusOf(heavy)), ...(await statusOf([light]))]).toEqual(Array(5).fill("queued"));
    const running = async () => (await statusOf([...heavy, light])).filter((x) => x === "running").length;
    // One slot frees: the oldest job goes (every owner has nothing running yet). Another frees: the
    // light user, with nothing running, goes before the heavy user's second.
    await call(`/queue/jobs/${fillers[0]!.body.job_id}/cancel`, { method: "POST" });
    await until(running, (n) => n === 1, "a slot to be taken again");
    await call(`/queue/jobs/${fillers[1]!.body.job_id}/cancel`, { method: "POST" });
    await until(running, (n) => n === 2, "the next slot to be taken");
    expect(await statusOf([light])).toEqual(["running"]);
    expect((await statusOf(heavy)).filter((x) => x === "running")).toHaveLength(1);
    // Waiting jobs first, so none takes a slot the cancelled running ones free.
    for (const a of [...heavy, light, ...fillers])
      await call(`/queue/jobs/${a.body.job_id}/cancel`, { method: "POST" });
    await until(
      () => call("/queue/stats"),
      (r) => (r.body.counts.running ?? 0) === 0,
      "the queue to be idle again",
    );
  });
});
