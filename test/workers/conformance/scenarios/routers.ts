import { createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import worker from "../../../../src/index.js";
import { scriptModel, type Turn } from "../../../support/model-script.js";
import { until } from "../../../support/until.js";
import { CURRENT_SCHEMA_VERSION } from "../../../../migrations/index.js";
import { call, envFor, JSON_BODY, modelEnv, upgradeSocket } from "../../worker-client.js";
import { conformingCall, recordAnswer } from "../check.js";

/** The queue object runs with the Worker's own bindings: its model is the scripted server's "queue" channel. */
const queueModel = (turns: Turn[]) => scriptModel(env.MODEL_SERVER_URL, turns, { channel: "queue" });
const json = (method: string, body: unknown): RequestInit => ({
  method,
  headers: JSON_BODY,
  body: JSON.stringify(body),
});
/** A background run of the assistant, as a client submits one; its run id names its job. */
const background = async (message: string) => {
  const accepted = await call("/agents/assistant/runs", json("POST", { message, background: true, stream: false }));
  expect(accepted.status).toBe(202);
  return accepted.body.run_id as string;
};
const job = (id: string) => conformingCall(`/queue/jobs/${id}`).then((r) => r.body);
/** The Worker's cron handler, as the runtime fires it each minute. */
const tick = () =>
  worker.scheduled(createScheduledController({ scheduledTime: Date.now(), cron: "* * * * *" }), envFor({}));

/** Schedules, the job queue, database migrations and the WebSocket upgrade. */
export function routersScenarios(): void {
  const tag = crypto.randomUUID().slice(0, 8);

  it("schedules: created, listed, changed, disabled and enabled, triggered into a run, its attempts listed, deleted", async () => {
    await queueModel([{ text: "the scheduled report" }]);
    const fields = {
      name: `nightly-report-${tag}`,
      cron_expr: "0 3 29 2 *", // valid, but not due while the suite runs
      timezone: "Europe/Berlin",
      endpoint: "/agents/assistant/runs",
      payload: { message: "write the nightly report" },
      description: "the nightly report",
      max_retries: 1,
    };
    const created = await conformingCall("/schedules", json("POST", fields));
    expect(created.status).toBe(201);
    const s = created.body;
    expect(s).toMatchObject({ ...fields, enabled: true, method: "POST", next_run_at: expect.any(Number) });
    expect(await conformingCall("/schedules", json("POST", fields))).toMatchObject({ status: 409 });
    expect(await conformingCall("/schedules", json("POST", { ...fields, cron_expr: "61 * * * *" }))).toMatchObject({
      status: 422,
    });

    const listed = await conformingCall("/schedules?limit=1000&enabled=true");
    expect(listed.body.data.map((x: { id: string }) => x.id)).toContain(s.id);
    expect(listed.body.meta).toMatchObject({ page: 1, limit: 1000, search_time_ms: 0 });
    expect((await conformingCall(`/schedules/${s.id}`)).body).toEqual(s);
    expect((await conformingCall(`/schedules/no-such-schedule-${tag}`)).status).toBe(404);

    const changed = await conformingCall(`/schedules/${s.id}`, json("PATCH", { description: "the morning report" }));
    expect(changed.body).toMatchObject({ id: s.id, description: "the morning report", updated_at: expect.any(Number) });
    expect((await conformingCall(`/schedules/${s.id}`, json("PATCH", { locked_by: "me" }))).status).toBe(422);

    const disabled = await conformingCall(`/schedules/${s.id}/disable`, { method: "POST" });
    expect(disabled.body).toMatchObject({ id: s.id, name: fields.name, enabled: false });
    expect((await conformingCall(`/schedules/${s.id}/trigger`, { method: "POST" })).status).toBe(409);
    // `enabled` filters as agno reads a boolean query (`0`, `false`, `no`, …).
    const ids = async (query: string) =>
      (await conformingCall(`/schedules?limit=1000&${query}`)).body.data.map((x: { id: string }) => x.id);
    expect(await ids("enabled=0")).toContain(s.id);
    expect(await ids("enabled=true")).not.toContain(s.id);
    expect((await conformingCall("/schedules?enabled=maybe")).status).toBe(422);
    const enabled = await conformingCall(`/schedules/${s.id}/enable`, { method: "POST" });
    expect(enabled.body).toMatchObject({ enabled: true, next_run_at: expect.any(Number) });

    const triggered = await conformingCall(`/schedules/${s.id}/trigger`, { method: "POST" });
    expect(triggered.body).toMatchObject({
      schedule_id: s.id,
      attempt: 1,
      status: "running",
      run_id: expect.any(String),
      input: fields.payload,
    });
    const attempt = triggered.body;
    // The run the attempt started is a background job: it is found by its run id.
    expect(await job(attempt.run_id)).toMatchObject({ id: attempt.run_id, session_id: attempt.session_id });
    await until(
      () => call(`/agents/assistant/runs/${attempt.run_id}`).then((r) => r.body),
      (r) => r?.status === "COMPLETED",
      "the triggered run",
      { ms: 30_000, every: 200 },
    );
    const settled = await until(
      async () => (await tick(), (await conformingCall(`/schedules/${s.id}/runs/${attempt.id}`)).body),
      (r) => r.status !== "running",
      "the attempt to settle",
      { ms: 30_000, every: 200 },
    );
    expect(settled).toMatchObject({ status: "success", completed_at: expect.any(Number) });
    const runs = await conformingCall(`/schedules/${s.id}/runs?limit=10`);
    expect(runs.body).toMatchObject({ data: [settled], meta: { page: 1, limit: 10, total_pages: 1, total_count: 1 } });
    expect((await conformingCall(`/schedules/${s.id}/runs/no-such-attempt`)).status).toBe(404);

    expect((await conformingCall(`/schedules/${s.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await conformingCall(`/schedules/${s.id}`)).status).toBe(404);
    expect((await conformingCall(`/schedules/${s.id}/runs`)).status).toBe(404);
  }, 90_000);

  it("the job queue: background jobs read, listed by status, cancelled, requeued, and the stats", async () => {
    await queueModel([{ text: "done in the background" }]);
    const done = await background(`finish this ${tag}`);
    const completed = await until(
      () => job(done),
      (j) => j.status === "completed",
      "the job to complete",
    );
    expect(completed).toMatchObject({ id: done, component_type: "agent", component_id: "assistant", attempt: 1 });
    const listed = await conformingCall("/queue/jobs?status=completed&limit=100");
    expect(listed.body.data.map((j: { id: string }) => j.id)).toContain(done);
    expect(new Set(listed.body.data.map((j: { status: string }) => j.status))).toEqual(new Set(["completed"]));
    expect((await conformingCall("/queue/jobs?status=failed&status=cancelled")).status).toBe(200);
    expect((await conformingCall("/queue/jobs?status=LOST")).status).toBe(422);
    expect((await conformingCall(`/queue/jobs/no-such-job-${tag}`)).status).toBe(404);
    expect((await conformingCall(`/queue/jobs/${done}/cancel`, { method: "POST" })).status).toBe(409);
    expect((await conformingCall(`/queue/jobs/${done}/requeue`, { method: "POST" })).status).toBe(409);

    const script = await queueModel([{ hang: true }, { text: "answered after the requeue" }]);
    const held = await background(`hold this ${tag}`);
    await until(
      () => job(held),
      (j) => j.status === "running",
      "the job to start",
    );
    const stats = await conformingCall("/queue/stats");
    expect(stats.body.counts.running).toBeGreaterThanOrEqual(1);
    const cancelling = await conformingCall(`/queue/jobs/${held}/cancel`, { method: "POST" });
    expect(cancelling.body).toMatchObject({ id: held, status: "running" });
    await until(
      () => job(held),
      (j) => j.status === "cancelled",
      "the job to be cancelled",
    );
    expect((await script.requests())[0]!.disconnected).toBe(true);
    const requeued = await conformingCall(`/queue/jobs/${held}/requeue`, { method: "POST" });
    expect(requeued.body).toMatchObject({ id: held, status: "queued", max_attempts: 2, completed_at: null });
    await until(
      () => job(held),
      (j) => j.status === "completed",
      "the requeued job",
      { ms: 30_000 },
    );
    expect((await call(`/agents/assistant/runs/${held}`)).body.content).toBe("answered after the requeue");
  }, 90_000);

  it("databases: list their schema state, migrate all, migrate one; an unknown database or version is refused", async () => {
    const all = await conformingCall("/databases/all/migrate", { method: "POST" });
    expect(all).toMatchObject({
      status: 200,
      body: { message: "All databases migrated successfully to latest version" },
    });
    const one = await conformingCall("/databases/default/migrate", json("POST", { target_version: "3.0.0" }));
    expect(one.body.message).toMatch(/^Database migrated successfully to version /);
    expect((await conformingCall(`/databases/nope-${tag}/migrate`, { method: "POST" })).status).toBe(404);
    expect((await conformingCall("/databases/default/migrate?target_version=9.9.9", { method: "POST" })).status).toBe(
      422,
    );
    const listed = await conformingCall("/databases");
    expect(listed.status).toBe(200);
    expect(listed.body[0]).toEqual({
      db_id: "default",
      schema_version: CURRENT_SCHEMA_VERSION,
      latest_version: CURRENT_SCHEMA_VERSION,
      state: "current",
    });
  });

  it("GET /ws upgrades to a WebSocket that runs an agent; a plain GET is told to upgrade", async () => {
    const { env: e } = await modelEnv([{ text: "over the socket" }]);
    const { res, ws, ctx } = await upgradeSocket(e);
    expect(res.status).toBe(101);
    recordAnswer("GET", "/ws", res.status);
    const frames: Array<Record<string, unknown>> = [];
    const completed = new Promise<void>((resolve) =>
      ws!.addEventListener("message", (evt) => {
        const frame = JSON.parse(evt.data as string) as Record<string, unknown>;
        frames.push(frame);
        if (frame.event === "RunCompleted") resolve();
      }),
    );
    ws!.send(JSON.stringify({ action: "ping", id: "p" }));
    ws!.send(JSON.stringify({ action: "run", id: "r", agent_id: "assistant", message: "say hi" }));
    await completed;
    expect(frames.find((f) => f.event === "pong")).toMatchObject({ request_id: "p" });
    expect(frames.at(-1)).toMatchObject({ event: "RunCompleted", request_id: "r", content: "over the socket" });
    ws!.close(1000, "done");
    await waitOnExecutionContext(ctx);
    expect((await conformingCall("/ws", {}, e)).status).toBe(426);
  });
}
