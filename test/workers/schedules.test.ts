/**
 * Schedules over HTTP and through the Worker's own cron handler: agno's routes and scopes, the
 * updateSchedule whitelist, per-user isolation with two JWT users, and a schedule created over
 * HTTP that `scheduled()` turns into a queued run the JobQueue completes. The workers test files
 * share the `ai` schema, so names carry a per-run tag and every schedule here that is not meant
 * to fire uses a cron far from now.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createScheduledController } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker, { type Env } from "../../src/index.js";
import { scriptModel } from "../support/model-script.js";
import { call, envFor, isolatedJwt, JSON_BODY, sdkFetch } from "./worker-client.js";
import { AgentOS } from "../../src/os/agent-os.js";
import { Agent } from "../../src/agent/agent.js";
import { createModel } from "../../src/models/providers.js";
import { until } from "../support/until.js";

const tag = crypto.randomUUID().slice(0, 8);
const A = `sched-a-${tag}`;
const B = `sched-b-${tag}`;
const SCOPES = ["schedules:read", "schedules:write", "schedules:delete", "agents:read", "agents:run"];
const NOT_SOON = "0 3 29 2 *"; // 03:00 on Feb 29: valid, but not due during a test
type Who = "A" | "B" | "noRun";
const who: Record<Who, Record<string, string>> = { A: {}, B: {}, noRun: {} };
let E: Partial<Env>;

const as = (w: Who, method: string, path: string, body?: unknown) =>
  call(path, { method, ...(body === undefined ? {} : { headers: JSON_BODY, body: JSON.stringify(body) }) }, E, who[w]);
const create = (w: Who, fields: Record<string, unknown>) =>
  as(w, "POST", "/schedules", {
    name: `s-${crypto.randomUUID().slice(0, 8)}`,
    cron_expr: NOT_SOON,
    endpoint: "/agents/assistant/runs",
    payload: { message: "scheduled hello" },
    ...fields,
  });

/**
 * Polls a schedule's run history (no cron tick in between) until attempt `id` has left
 * `running`; within seconds, since the job's end settles it.
 */
const settledAttempt = async (scheduleId: string, id: string) => {
  type Attempt = { id: string; status: string; completed_at: number | null } & Record<string, unknown>;
  const attemptIn = (page: { data: Attempt[] }) => page.data.find((r) => r.id === id);
  const page = await until(
    async () => (await as("A", "GET", `/schedules/${scheduleId}/runs`)).body,
    (p) => attemptIn(p)?.status !== "running",
    `attempt ${id} to settle`,
    { ms: 15_000, every: 100 },
  );
  return attemptIn(page)!;
};

/** The cron trigger as the runtime fires it, for the minute `at` (ms). */
const cron = (at: number) =>
  worker.scheduled(createScheduledController({ scheduledTime: at, cron: "* * * * *" }), envFor(E));

beforeAll(async () => {
  const jwt = await isolatedJwt("sched");
  E = jwt.env;
  who.A = await jwt.bearer(A, SCOPES);
  who.B = await jwt.bearer(B, SCOPES);
  who.noRun = await jwt.bearer(`sched-c-${tag}`, ["schedules:read", "schedules:write"]);
});

describe("schedules over HTTP", () => {
  it("creates a schedule owned by the caller, with its first occurrence; names are unique per user", async () => {
    const created = await create("A", { name: `daily-${tag}`, cron_expr: "0 8 * * *", timezone: "Europe/Berlin" });
    expect(created).toMatchObject({
      status: 201,
      body: {
        name: `daily-${tag}`,
        user_id: A,
        method: "POST",
        enabled: true,
        next_run_at: expect.any(Number),
        max_retries: 0,
      },
    });
    // agno's ScheduleResponse, field for field: no lock, no provenance of the runs that wrote it.
    expect(Object.keys(created.body).sort()).toEqual(
      [
        "id",
        "user_id",
        "name",
        "description",
        "method",
        "endpoint",
        "payload",
        "cron_expr",
        "timezone",
        "timeout_seconds",
        "max_retries",
        "retry_delay_seconds",
        "enabled",
        "next_run_at",
        "managed_by",
        "target_type",
        "target_id",
        "disabled_reason",
        "created_at",
        "updated_at",
      ].sort(),
    );
    expect((await create("A", { name: `daily-${tag}` })).status).toBe(409);
    expect((await create("B", { name: `daily-${tag}` })).status).toBe(201);
    const list = await as("A", "GET", "/schedules?limit=1000");
    expect(list.body.data.map((s: { user_id: string }) => s.user_id)).toEqual(list.body.data.map(() => A));
    expect(list.body.meta).toEqual({
      page: 1,
      limit: 1000,
      total_count: list.body.data.length,
      total_pages: 1,
      search_time_ms: 0,
    });
    expect((await as("A", "GET", "/schedules?limit=1001")).status).toBe(422);
  });

  it("answers 422 naming the problem for a bad cron, timezone, endpoint or field, 403 without agents:run", async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ cron_expr: "61 * * * *" }, /cron_expr/],
      [{ cron_expr: "* * * * * *" }, /5 fields/],
      [{ timezone: "Atlantis/Capital" }, /timezone/],
      [{ endpoint: "https://example.com/agents/assistant/runs" }, /endpoint must be a path/],
      [{ endpoint: "/agents/nobody/runs" }, /agent nobody is not served/],
      // Team and workflow endpoints parse to their components, refused until this AgentOS serves them.
      [{ endpoint: "/teams/crew/runs" }, /team crew is not served/],
      [{ endpoint: "/workflows/nightly/runs" }, /workflow nightly is not served/],
      [{ user_id: B }, /user_id/],
      [{ payload: { message: "x", user_id: B } }, /payload\.user_id/],
    ];
    for (const [fields, detail] of cases)
      expect(await create("A", fields), JSON.stringify(fields)).toMatchObject({
        status: 422,
        body: { detail: expect.stringMatching(detail), error_id: "validation_error" },
      });
    expect((await create("noRun", {})).status).toBe(403);
  });

  it("PATCH takes only the whitelisted fields; ownership and locks never change through it", async () => {
    const { body: s } = await create("A", {});
    for (const field of ["user_id", "locked_by", "locked_at", "managed_by", "created_at", "id"]) {
      expect(await as("A", "PATCH", `/schedules/${s.id}`, { [field]: "x" })).toMatchObject({
        status: 422,
        body: { detail: expect.stringContaining(`${field}: cannot be changed`) },
      });
    }
    expect(
      (await as("A", "PATCH", `/schedules/${s.id}`, { endpoint: "//evil.example/agents/assistant/runs" })).status,
    ).toBe(422);
    expect((await as("A", "PATCH", `/schedules/${s.id}`, { timezone: "Nope/Nope" })).status).toBe(422);
    const changed = await as("A", "PATCH", `/schedules/${s.id}`, {
      description: "renamed",
      cron_expr: "0 4 29 2 *",
      max_retries: 3,
    });
    expect(changed).toMatchObject({
      status: 200,
      body: { description: "renamed", cron_expr: "0 4 29 2 *", max_retries: 3, user_id: A },
    });
    // enable and disable answer agno's trimmed ScheduleStateResponse.
    expect((await as("A", "POST", `/schedules/${s.id}/disable`)).body).toEqual({
      id: s.id,
      name: s.name,
      enabled: false,
      next_run_at: expect.any(Number),
      updated_at: expect.any(Number),
    });
    expect((await as("A", "POST", `/schedules/${s.id}/trigger`)).status).toBe(409);
    expect((await as("A", "POST", `/schedules/${s.id}/enable`)).body).toEqual({
      id: s.id,
      name: s.name,
      enabled: true,
      next_run_at: expect.any(Number),
      updated_at: expect.any(Number),
    });
    expect((await as("A", "GET", `/schedules/${s.id}`)).body).toMatchObject({ enabled: true, disabled_reason: null });
  });

  it("isolates users: B never sees, changes or triggers A's schedule (404), and it stays as it was", async () => {
    const { body: s } = await create("A", {});
    const before = (await as("A", "GET", `/schedules/${s.id}`)).body;
    for (const [method, path, body] of [
      ["GET", `/schedules/${s.id}`],
      ["PATCH", `/schedules/${s.id}`, { enabled: false }],
      ["DELETE", `/schedules/${s.id}`],
      ["POST", `/schedules/${s.id}/enable`],
      ["POST", `/schedules/${s.id}/disable`],
      ["POST", `/schedules/${s.id}/trigger`],
      ["GET", `/schedules/${s.id}/runs`],
      ["GET", `/schedules/${s.id}/runs/no-such-run`],
    ] as const) {
      expect(await as("B", method, path, body), `${method} ${path}`).toMatchObject({
        status: 404,
        body: { error_id: "not_found" },
      });
    }
    expect((await as("B", "GET", "/schedules?limit=1000")).body.data.map((x: { id: string }) => x.id)).not.toContain(
      s.id,
    );
    expect((await as("B", "GET", `/schedules/${s.id}?user_id=${A}`)).status).toBe(404);
    expect((await as("A", "GET", `/schedules/${s.id}`)).body).toEqual(before);
    expect((await as("A", "DELETE", `/schedules/${s.id}`)).status).toBe(204);
    expect((await as("A", "GET", `/schedules/${s.id}`)).status).toBe(404);
  });

  it("refuses to store a schedule on an AgentOS without the durable queue (503), since nothing would run it", async () => {
    const agent = new Agent({
      id: "assistant",
      model: createModel("openai:gpt-test", {
        credentials: { openai: { apiKey: "k", baseURL: "http://127.0.0.1:9/v1" } },
      }),
    });
    const os = new AgentOS({ auth: { mode: "none" }, agents: [agent] });
    const fetchOs = sdkFetch(os, "ai");
    const body = JSON.stringify({
      name: `no-queue-${tag}`,
      cron_expr: "0 8 * * *",
      endpoint: "/agents/assistant/runs",
      payload: { message: "hi" },
    });
    const res = await fetchOs("/schedules", { method: "POST", headers: JSON_BODY, body });
    expect(res.status).toBe(503);
    expect(JSON.parse(res.text)).toMatchObject({
      error_id: "not_configured",
      detail: expect.stringMatching(/durable queue/),
    });
    const listed = await fetchOs(`/schedules?limit=100`, { method: "GET" });
    expect(JSON.parse(listed.text).data.map((s: { name: string }) => s.name)).not.toContain(`no-queue-${tag}`);
    // Nor does it start an attempt of a stored schedule: trigger answers 503 and records nothing.
    const { body: stored } = await create("A", {});
    const triggered = await fetchOs(`/schedules/${stored.id}/trigger`, { method: "POST" });
    expect(triggered.status).toBe(503);
    expect(JSON.parse(triggered.text)).toMatchObject({
      error_id: "not_configured",
      detail: expect.stringMatching(/durable queue/),
    });
    expect((await as("A", "GET", `/schedules/${stored.id}/runs`)).body.meta.total_count).toBe(0);
  });

  it("lists its routes in the OpenAPI document with their scopes", async () => {
    const { body: doc } = await call("/openapi.json");
    expect(doc.paths["/schedules/{schedule_id}/trigger"].post["x-required-scope"]).toBe("schedules:write");
    expect(
      Object.keys(doc.paths)
        .filter((p) => p.startsWith("/schedules"))
        .sort(),
    ).toEqual([
      "/schedules",
      "/schedules/{schedule_id}",
      "/schedules/{schedule_id}/disable",
      "/schedules/{schedule_id}/enable",
      "/schedules/{schedule_id}/runs",
      "/schedules/{schedule_id}/runs/{run_id}",
      "/schedules/{schedule_id}/trigger",
    ]);
  });
});

describe("the cron trigger runs schedules through the durable queue", () => {
  it("a schedule created over HTTP becomes a queued run that completes; its attempt shows success when the job ends, with no tick in between", async () => {
    await scriptModel(env.MODEL_SERVER_URL, [{ text: "the scheduled answer" }], { channel: "queue" });
    const minute = Math.floor(Date.now() / 60_000) * 60;
    const { body: s } = await create("A", { cron_expr: "* * * * *" });
    expect((await as("A", "PATCH", `/schedules/${s.id}`, { next_run_at: minute })).status).toBe(200);
    await cron(minute * 1000);
    const [attempt] = (await as("A", "GET", `/schedules/${s.id}/runs`)).body.data;
    expect(attempt).toMatchObject({
      // already settled if the queue was quicker than this read
      status: expect.stringMatching(/^(running|success)$/),
      attempt: 1,
      triggered_at: expect.any(Number),
      user_id: A,
      run_id: expect.any(String),
      input: { message: "scheduled hello" },
    });
    expect(attempt.triggered_at).toBeGreaterThanOrEqual(minute);
    // agno's ScheduleRunResponse: the occurrence, job and retry bookkeeping stay inside.
    for (const inside of ["scheduled_for", "job_id", "next_attempt_at", "occurrence_key"])
      expect(attempt).not.toHaveProperty(inside);
    expect((await as("A", "GET", `/schedules/${s.id}`)).body.next_run_at).toBe(minute + 60);
    // No tick until it has settled: the job's end settles its attempt.
    const settled = await settledAttempt(s.id, attempt.id);
    const run = await as("A", "GET", `/agents/assistant/runs/${attempt.run_id}`);
    expect(run.body).toMatchObject({
      status: "COMPLETED",
      content: "the scheduled answer",
      user_id: A,
      session_id: attempt.session_id,
    });
    expect(settled).toMatchObject({
      status: "success",
      output: { content: "the scheduled answer" },
      completed_at: expect.any(Number),
    });
    expect(settled.completed_at).toBeGreaterThanOrEqual(run.body.created_at);
    await cron(minute * 1000); // the same minute again: nothing new
    expect((await as("A", "GET", `/schedules/${s.id}/runs`)).body.meta.total_count).toBe(1);
    // Off from here: the schedule would fire again at every tick the suite's other tests make.
    await as("A", "POST", `/schedules/${s.id}/disable`);
  });

  it("POST /trigger runs a schedule now, outside its cron", async () => {
    await scriptModel(env.MODEL_SERVER_URL, [{ text: "triggered by hand" }], { channel: "queue" });
    const { body: s } = await create("A", {});
    const triggered = await as("A", "POST", `/schedules/${s.id}/trigger`);
    expect(triggered).toMatchObject({
      status: 200,
      body: { status: "running", schedule_id: s.id, attempt: 1, run_id: expect.any(String) },
    });
    // The attempt's run is a durable job, found by its run id as agno's jobs are.
    expect((await call(`/queue/jobs/${triggered.body.run_id}`, {}, {})).body).toMatchObject({
      id: triggered.body.run_id,
      session_id: triggered.body.session_id,
      status: expect.stringMatching(/^(queued|running|completed)$/),
    });
    const run = await until(
      () => as("A", "GET", `/agents/assistant/runs/${triggered.body.run_id}`),
      (r) => r.body?.status === "COMPLETED",
      "the triggered run",
      { ms: 30_000, every: 200 },
    );
    expect(run.body.content).toBe("triggered by hand");
    expect(await settledAttempt(s.id, triggered.body.id)).toMatchObject({ status: "success" });
  });

  it("a failed run's attempt shows failed with its error when its job ends, with no tick in between", async () => {
    await scriptModel(env.MODEL_SERVER_URL, [{ error: { status: 400, message: "the model refused" } }], {
      channel: "queue",
    });
    const { body: s } = await create("A", {});
    const triggered = await as("A", "POST", `/schedules/${s.id}/trigger`);
    expect(triggered).toMatchObject({ status: 200, body: { status: "running" } });
    expect(await settledAttempt(s.id, triggered.body.id)).toMatchObject({
      status: "failed",
      error: expect.stringContaining("the model refused"),
      completed_at: expect.any(Number),
    });
    expect((await as("A", "GET", `/agents/assistant/runs/${triggered.body.run_id}`)).body.status).toBe("ERROR");
  });

  it("a run cancelled mid-answer shows its attempt cancelled when its job ends, with no tick in between", async () => {
    await scriptModel(env.MODEL_SERVER_URL, [{ hang: true }], { channel: "queue" });
    const { body: s } = await create("A", {});
    const triggered = await as("A", "POST", `/schedules/${s.id}/trigger`);
    const runPath = `/agents/assistant/runs/${triggered.body.run_id}`;
    await until(
      () => as("A", "GET", runPath),
      (r) => r.body?.status === "RUNNING",
      "the scheduled run to start",
      { ms: 30_000, every: 100 },
    );
    expect((await as("A", "POST", `${runPath}/cancel`)).body).toMatchObject({ cancelled: true });
    expect(await settledAttempt(s.id, triggered.body.id)).toMatchObject({
      status: "cancelled",
      completed_at: expect.any(Number),
    });
  });
});
