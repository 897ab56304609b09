import { env } from "cloudflare:workers";
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { Pool } from "@neondatabase/serverless";
import { describe, expect, it } from "vitest";
import { useLocalWsProxy } from "../../src/db/postgres/local-proxy.js";
import { scriptModel, type Turn } from "../support/model-script.js";
import { auth, call, JSON_BODY, parseSse, send } from "./worker-client.js";
import { until } from "../support/until.js";

/** The queue object runs with the worker's own bindings: its model is the "queue" channel. */
const queueModel = (turns: Turn[]) => scriptModel(env.MODEL_SERVER_URL, turns, { channel: "queue" });
const queueStub = () => env.JOB_QUEUE.get(env.JOB_QUEUE.idFromName("default"));

const background = (fields: Record<string, unknown>, headers: Record<string, string> = {}) => ({
  method: "POST",
  headers: { ...JSON_BODY, ...headers },
  body: JSON.stringify({ background: true, stream: false, ...fields }),
});

const runOf = (runId: string) => call(`/agents/assistant/runs/${runId}`).then((r) => r.body);
const jobOf = (jobId: string) => call(`/queue/jobs/${jobId}`).then((r) => r.body);

describe("durable background runs (background=true)", () => {
  it("commits the job and its PENDING run before answering 202, then the queue runs it", async () => {
    const script = await queueModel([{ text: "Done in the background." }]);
    const accepted = await call("/agents/assistant/runs", background({ message: "work later", user_id: "bg-user" }));
    expect(accepted).toMatchObject({
      status: 202,
      body: {
        status: "PENDING",
        run_id: expect.any(String),
        session_id: expect.any(String),
        job_id: expect.any(String),
      },
    });
    const { run_id, job_id, session_id } = accepted.body;
    const run = await until(
      () => runOf(run_id),
      (r) => r.status === "COMPLETED",
      "the run to complete",
    );
    expect(run).toMatchObject({ content: "Done in the background.", session_id, user_id: "bg-user" });
    // agno's QueueJobSchema: the job's id is its run's run_id, which finds it as its row id does.
    expect(await jobOf(run_id)).toMatchObject({ id: run_id, status: "completed", attempt: 1, user_id: "bg-user" });
    expect(await jobOf(job_id)).toEqual(await jobOf(run_id));
    expect(await script.requests()).toHaveLength(1);
    // Submitted with stream=false: nobody follows it, so no event log was kept and /resume says so.
    const resume = await call(`/agents/assistant/runs/${run_id}/resume`, {
      method: "POST",
      headers: JSON_BODY,
      body: JSON.stringify({ user_id: "bg-user" }),
    });
    expect(resume).toMatchObject({ status: 409, body: { detail: expect.stringMatching(/not streamed/) } });
  });

  it("spreads jobs over AGNO_QUEUE_SHARDS queue objects, each claiming from the one table: every job runs once", async () => {
    const script = await queueModel(Array.from({ length: 8 }, (_, i) => ({ text: `sharded ${i}` })));
    const shards = { AGNO_QUEUE_SHARDS: "3" };
    const accepted = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call("/agents/assistant/runs", background({ message: `job ${i}`, user_id: "shard-user" }), shards),
      ),
    );
    expect(accepted.map((a) => a.status)).toEqual(Array(8).fill(202));
    for (const a of accepted) {
      await until(
        () => jobOf(a.body.job_id),
        (j) => j.status === "completed",
        `job ${a.body.job_id}`,
      );
      expect(await jobOf(a.body.job_id)).toMatchObject({ attempt: 1 });
    }
    const answered = await Promise.all(accepted.map((a) => runOf(a.body.run_id).then((r) => r.content as string)));
    expect(new Set(answered).size).toBe(8);
    expect(await script.requests()).toHaveLength(8);
  });

  it("answers /resume of a queued run submitted with stream=false with 409 at once, while it waits", async () => {
    await queueModel([{ text: "slow", delayMs: 1500 }]);
    const accepted = await call("/agents/assistant/runs", background({ message: "unwatched", user_id: "bg-user" }));
    const resume = await call(`/agents/assistant/runs/${accepted.body.run_id}/resume`, {
      method: "POST",
      headers: JSON_BODY,
      body: JSON.stringify({ user_id: "bg-user" }),
    });
    expect(resume.status).toBe(409);
    expect((await runOf(accepted.body.run_id)).status).not.toBe("COMPLETED");
    await until(
      () => runOf(accepted.body.run_id),
      (r) => r.status === "COMPLETED",
      "the run to complete",
    );
  });

  it("carries uploaded files through the queue: the queued run gets them as it would inline", async () => {
    const script = await queueModel([{ text: "A pixel." }]);
    const png = Uint8Array.from(
      atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="),
      (ch) => ch.charCodeAt(0),
    );
    const multipart = new FormData();
    multipart.set("message", "What is this?");
    multipart.set("background", "true");
    multipart.set("stream", "false");
    multipart.append("files", new File([png], "pixel.png", { type: "image/png" }));
    const accepted = await call("/agents/assistant/runs", { method: "POST", body: multipart });
    expect(accepted.status).toBe(202);
    const run = await until(
      () => runOf(accepted.body.run_id),
      (r) => r.status === "COMPLETED",
      "the queued run",
    );
    expect(run.input.images).toEqual([
      expect.objectContaining({
        mime_type: "image/png",
        media_reference: expect.objectContaining({ storage_backend: "r2", size: png.length }),
      }),
    ]);
    expect(run.input.images[0].content).toBeUndefined();
    const parts = ((await script.requests())[0]!.body.messages as Array<{ content: unknown }>).at(-1)!
      .content as Array<{ type: string }>;
    expect(parts.map((p) => p.type)).toEqual(["text", "image_url"]);
  });

  it("streams a background run's events live when stream is true", async () => {
    await queueModel([{ text: "streamed from the queue", chunkSize: 5 }]);
    const res = await send("/agents/assistant/runs", {
      method: "POST",
      headers: JSON_BODY,
      body: JSON.stringify({ background: true, message: "stream it" }),
    });
    const frames = parseSse(await res.text());
    expect(frames.map((f) => f.id)).toEqual(frames.map((_, i) => i));
    expect(frames[0]!.event).toBe("RunStarted");
    expect(frames.at(-1)).toMatchObject({ event: "RunCompleted", data: { content: "streamed from the queue" } });
  });

  it("keeps one RunStarted in a retried streamed run's event log, the retry's events following on", async () => {
    await queueModel([
      { error: { status: 400, message: "first attempt fails" } },
      { text: "second attempt", chunkSize: 6 },
    ]);
    // Answered as SSE (stream=true), which follows the log until the first attempt's error.
    const live = parseSse(
      await (
        await send(
          "/agents/assistant/runs",
          background({ message: "retried and streamed", stream: true, user_id: "bg-retry" }),
        )
      ).text(),
    );
    const runId = live[0]!.data.run_id as string;
    await until(
      () => runOf(runId),
      (r) => r.status === "COMPLETED",
      "the retried run to complete",
      { ms: 30_000 },
    );
    const log = parseSse(await (await send(`/agents/assistant/runs/${runId}/resume`, { method: "POST" })).text());
    expect(log.map((f) => f.id)).toEqual(log.map((_, i) => i));
    expect(log.filter((f) => f.event === "RunStarted")).toHaveLength(1);
    expect(log[0]!.event).toBe("RunStarted");
    expect(log.map((f) => f.event)).toContain("RunError");
    expect(log.at(-1)).toMatchObject({ event: "RunCompleted", data: { content: "second attempt" } });
  }, 60_000);

  it("deduplicates by Idempotency-Key per user; the same key with another body is a 422", async () => {
    const script = await queueModel([{ text: "once" }, { text: "other user" }]);
    const same = background({ message: "exactly once", user_id: "idem-a" }, { "idempotency-key": "k-1" });
    const answers = await Promise.all(Array.from({ length: 6 }, () => call("/agents/assistant/runs", same)));
    expect(answers.map((a) => a.status).sort()).toEqual([202, 202, 202, 202, 202, 202]);
    expect(new Set(answers.map((a) => a.body.job_id)).size).toBe(1);
    const changed = await call(
      "/agents/assistant/runs",
      background({ message: "something else", user_id: "idem-a" }, { "idempotency-key": "k-1" }),
    );
    expect(changed).toMatchObject({ status: 422, body: { detail: expect.stringMatching(/Idempotency-Key/) } });
    const otherUser = await call(
      "/agents/assistant/runs",
      background({ message: "exactly once", user_id: "idem-b" }, { "idempotency-key": "k-1" }),
    );
    expect(otherUser.status).toBe(202);
    expect(otherUser.body.job_id).not.toBe(answers[0]!.body.job_id);
    await until(
      () => jobOf(otherUser.body.job_id),
      (j) => j.status === "completed",
      "the second user's job",
    );
    await until(
      () => jobOf(answers[0]!.body.job_id),
      (j) => j.status === "completed",
      "the first user's job",
    );
    expect(await script.requests()).toHaveLength(2);
  });

  it("answers 404 for a background run into another user's session: the queue object's refusal keeps its type", async () => {
    await queueModel([{ text: "a's run" }]);
    const mine = await call(
      "/agents/assistant/runs",
      background({ message: "mine", session_id: "owned-by-a", user_id: "owner-a" }),
    );
    expect(mine.status).toBe(202);
    await until(
      () => jobOf(mine.body.job_id),
      (j) => j.status === "completed",
      "the owner's job",
    );
    const waiting = async () => {
      const { counts } = (await call("/queue/stats")).body;
      return { queued: counts.queued ?? 0, running: counts.running ?? 0 };
    };
    const before = await waiting();
    const theirs = await call(
      "/agents/assistant/runs",
      background({ message: "not yours", session_id: "owned-by-a", user_id: "owner-b" }),
    );
    expect(theirs).toMatchObject({
      status: 404,
      body: { error_id: "not_found", detail: expect.stringMatching(/owned-by-a/) },
    });
    expect(await waiting()).toEqual(before);
  });

  it("answers 429 with Retry-After when the queue is full, and stores nothing", async () => {
    const script = await queueModel([{ hang: true }]);
    const small = { AGNO_QUEUE_MAX_DEPTH: "1" };
    const first = await call("/agents/assistant/runs", background({ message: "occupy", session_id: "full-1" }), small);
    expect(first.status).toBe(202);
    await until(
      () => jobOf(first.body.job_id),
      (j) => j.status === "running",
      "the first job to start",
    );
    const waiting = async () => {
      const { counts } = (await call("/queue/stats")).body;
      return { queued: counts.queued ?? 0, running: counts.running ?? 0 };
    };
    const before = await waiting();
    const refused = await call(
      "/agents/assistant/runs",
      background({ message: "no room", session_id: "full-2" }),
      small,
    );
    expect(refused).toMatchObject({ status: 429, body: { error_id: "queue_full" } });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await waiting()).toEqual(before);
    expect((await call("/sessions/full-2")).status).toBe(404);
    // Cancelling the running job stops its run cooperatively; the job ends CANCELLED.
    const cancel = await call(`/queue/jobs/${first.body.run_id}/cancel`, { method: "POST" });
    expect(cancel).toMatchObject({ status: 200, body: { id: first.body.run_id, status: "running" } });
    await until(
      () => jobOf(first.body.job_id),
      (j) => j.status === "cancelled",
      "the job to be cancelled",
    );
    expect((await runOf(first.body.run_id)).status).toBe("CANCELLED");
    expect((await script.requests())[0]!.disconnected).toBe(true);
  });

  it("cancels queued runs racing the queue: each ends CANCELLED, none completes", async () => {
    // The answer takes longer than the cancels take to land, on a busy machine too: a run no
    // longer waits for its RUNNING write before it asks the model.
    const script = await queueModel(
      Array.from({ length: 8 }, () => ({ text: "should not finish", chunkSize: 1, delayMs: 1_000 })),
    );
    const accepted = await Promise.all(
      Array.from({ length: 8 }, (_, i) => call("/agents/assistant/runs", background({ message: `cancel me ${i}` }))),
    );
    const cancels = await Promise.all(
      accepted.map((a) => call(`/agents/assistant/runs/${a.body.run_id}/cancel`, { method: "POST" })),
    );
    expect(cancels.map((c) => c.body.cancelled)).toEqual(accepted.map(() => true));
    for (const a of accepted) {
      const job = await until(
        () => jobOf(a.body.job_id),
        (j) => j.status === "cancelled" || j.status === "completed" || j.status === "failed",
        "the job to end",
      );
      expect({ job: job.status, run: (await runOf(a.body.run_id)).status }).toEqual({
        job: "cancelled",
        run: "CANCELLED",
      });
    }
    // A job claimed before its cancel stopped mid-answer; one cancelled while queued never asked the model.
    expect((await script.requests()).length).toBeLessThanOrEqual(accepted.length);
  });

  it("retries a failed attempt with backoff, then fails the job with its error; requeue gives one more attempt", async () => {
    const script = await queueModel([
      { error: { status: 400, message: "bad request one" } },
      { error: { status: 400, message: "bad request two" } },
      { error: { status: 400, message: "bad request three" } },
      { text: "fourth time lucky" },
    ]);
    const accepted = await call("/agents/assistant/runs", background({ message: "flaky" }));
    const failed = await until(
      () => jobOf(accepted.body.job_id),
      (j) => j.status === "failed",
      "the job to fail",
      { ms: 30_000 },
    );
    expect(failed).toMatchObject({ attempt: 3, max_attempts: 3, error: expect.stringMatching(/bad request three/) });
    expect((await runOf(accepted.body.run_id)).status).toBe("ERROR");
    expect((await call(`/queue/jobs/${accepted.body.run_id}/requeue`, { method: "POST" })).body).toMatchObject({
      id: accepted.body.run_id,
      status: "queued",
      max_attempts: 4,
      completed_at: null,
      error: null,
    });
    await until(
      () => jobOf(accepted.body.job_id),
      (j) => j.status === "completed",
      "the requeued job",
      { ms: 30_000 },
    );
    expect((await runOf(accepted.body.run_id)).content).toBe("fourth time lucky");
    expect(await script.requests()).toHaveLength(4);
    expect((await call(`/queue/jobs/${accepted.body.job_id}/requeue`, { method: "POST" })).status).toBe(409);
  }, 60_000);

  it("stores and shows only the public form of a run's internal error: a job whose run's last write the database refuses", async () => {
    // The queue object writes to the default schema: its runs table refuses rows holding the marker (only the model's answers carry it).
    const marker = "UNSTORABLE-QUEUED-ANSWER";
    useLocalWsProxy(env.DB_WS_PROXY);
    const pool = new Pool({ connectionString: env.DATABASE_URL });
    expect((await call("/sessions")).status).toBe(200); // the schema exists
    await pool.query(`CREATE OR REPLACE FUNCTION ai.refuse_queued_marker() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.run_data::text LIKE '%${marker}%' THEN RAISE EXCEPTION 'row refused by the test'; END IF; RETURN NEW; END $$`);
    await pool.query(
      `CREATE TRIGGER refuse_queued_marker BEFORE INSERT OR UPDATE ON ai.agno_runs FOR EACH ROW EXECUTE FUNCTION ai.refuse_queued_marker()`,
    );
    try {
      await queueModel(Array.from({ length: 3 }, () => ({ text: `queued answer ${marker}` })));
      const accepted = await call("/agents/assistant/runs", background({ message: "private queued question" }));
      const failed = await until(
        () => jobOf(accepted.body.job_id),
        (j) => j.status === "failed",
        "the job to fail",
        { ms: 40_000 },
      );
      expect(failed.error).toMatch(/^internal error \(ref [0-9a-f]{16}\)$/);
      const run = await runOf(accepted.body.run_id);
      expect(run).toMatchObject({ status: "ERROR", content: expect.stringMatching(/^internal error \(ref /) });
      // The job's payload is the request itself; what must be clean is every error the job and its run show.
      const listed = (await call(`/queue/jobs?status=failed`)).body.data as Array<{ id: string; error: string }>;
      const shown = JSON.stringify([
        failed.error,
        run.content,
        run.error,
        listed.find((j) => j.id === failed.id)?.error,
      ]);
      for (const secret of [
        "insert into",
        "failed query",
        "params:",
        "refused by the test",
        "private queued question",
        marker,
      ])
        expect(shown.toLowerCase()).not.toContain(secret.toLowerCase());
    } finally {
      await pool.query("DROP TRIGGER refuse_queued_marker ON ai.agno_runs");
      await pool.query("DROP FUNCTION ai.refuse_queued_marker()");
      await pool.end();
    }
  }, 60_000);

  it("keeps the queue alive: its alarm re-arms itself, also after a wake-up that throws", async () => {
    const stub = queueStub();
    await runInDurableObject(stub, async (instance) => {
      const broken = instance as unknown as { pump(): Promise<void> };
      const original = broken.pump.bind(instance);
      broken.pump = async () => {
        broken.pump = original;
        throw new Error("database unreachable");
      };
    });
    await expect(runDurableObjectAlarm(stub))
      .rejects.toThrow(/unreachable/)
      .catch(() => undefined);
    const armed = await runInDurableObject(stub, (_i, state) => state.storage.getAlarm());
    expect(armed).not.toBeNull();
  });

  it("recovers jobs whose queue object was aborted mid-run: the lease lapses and the job runs again", async () => {
    const script = await queueModel([{ text: "slow", chunkSize: 1, delayMs: 400 }, { text: "after the crash" }]);
    const accepted = await call("/agents/assistant/runs", background({ message: "survive a crash" }));
    await until(
      () => jobOf(accepted.body.job_id),
      (j) => j.status === "running",
      "the job to start",
    );
    await until(
      () => script.requests(),
      (r) => r.length >= 1,
      "the model to be called",
    );
    await runInDurableObject(queueStub(), (_i, state) => state.abort("simulated crash")).catch(() => undefined);
    const job = await until(
      () => jobOf(accepted.body.job_id),
      (j) => j.status === "completed",
      "the job to recover",
      { ms: 40_000 },
    );
    expect(job.attempt).toBe(2);
    expect((await runOf(accepted.body.run_id)).content).toBe("after the crash");
  }, 60_000);

  it("guards the queue routes: admin only, 404 for unknown jobs, 503 without a queue", async () => {
    expect((await call("/queue/jobs/no-such-job")).status).toBe(404);
    expect((await call("/queue/jobs?status=LOST")).status).toBe(422);
    const stats = (await call("/queue/stats")).body;
    expect(Object.keys(stats).sort()).toEqual(["counts", "oldest_queued_age_seconds"]);
    expect(stats.counts.completed).toBeGreaterThan(0);
    for (const [status, n] of Object.entries(stats.counts)) {
      expect(["queued", "running", "completed", "failed", "cancelled"]).toContain(status);
      expect(n).toBeGreaterThan(0);
    }
    // Several statuses at once, as agno's dead-letter view asks: every job listed is in one of them.
    const ended = (await call("/queue/jobs?status=failed&status=cancelled&limit=50")).body;
    expect(ended.data.length).toBeGreaterThan(0);
    expect(ended.data.every((j: { status: string }) => ["failed", "cancelled"].includes(j.status))).toBe(true);
    const sorted = ended.data.map((j: { created_at: number }) => j.created_at);
    expect(sorted).toEqual([...sorted].sort((a, b) => b - a));
    expect(ended.meta.total_count).toBe(
      (await call("/queue/jobs?status=failed&limit=1")).body.meta.total_count +
        (await call("/queue/jobs?status=cancelled&limit=1")).body.meta.total_count,
    );
    // agno's sort_by and sort_order: the oldest first, or by attempt; an unknown column orders by id alone.
    const oldest = (await call("/queue/jobs?sort_by=created_at&sort_order=asc&limit=50")).body.data;
    const created = oldest.map((j: { created_at: number }) => j.created_at);
    expect(created).toEqual([...created].sort((a, b) => a - b));
    const byAttempt = (await call("/queue/jobs?sort_by=attempt&sort_order=desc&limit=50")).body.data;
    const attempts = byAttempt.map((j: { attempt: number }) => j.attempt);
    expect(attempts).toEqual([...attempts].sort((a, b) => b - a));
    expect(attempts[0]).toBeGreaterThan(attempts.at(-1));
    // A run job's id is its run's; a queued continue (an approval, a button) shows its run's id
    // too, not its own, so the order is checked on the run jobs.
    const byId = (await call("/queue/jobs?sort_by=no_such_column&limit=50")).body.data
      .filter((j: { job_type: string }) => j.job_type === "run")
      .map((j: { id: string }) => j.id);
    expect(byId.length).toBeGreaterThan(1);
    expect(byId).toEqual([...byId].sort());
    expect((await call("/queue/jobs?sort_order=sideways")).status).toBe(422);
    const noQueue = { JOB_QUEUE: undefined } as never;
    expect((await call("/queue/stats", {}, noQueue)).status).toBe(503);
    expect((await call("/agents/assistant/runs", background({ message: "x" }), noQueue)).status).toBe(400);
    // A queue binding without a database is a contradictory setting: the deployment stays closed, saying so (test/workers/env-config.test.ts).
    const noDatabase = await call("/agents/assistant/runs", background({ message: "x" }), {
      DATABASE_URL: undefined,
    } as never);
    expect(noDatabase).toMatchObject({
      status: 503,
      body: {
        error_id: "misconfigured",
        detail: expect.stringMatching(/DATABASE_URL is required by the JOB_QUEUE binding/),
      },
    });
    const longKey = await call(
      "/agents/assistant/runs",
      background({ message: "x", session_id: "bad-key" }, { "idempotency-key": "k".repeat(256) }),
    );
    expect(longKey).toMatchObject({ status: 422, body: { detail: expect.stringMatching(/Idempotency-Key/) } });
    expect((await call("/sessions/bad-key")).status).toBe(404);
    expect((await send("/queue/stats", {}, {}, {})).status).toBe(401);
    expect(auth.authorization).toMatch(/^Bearer /);
  });
});
