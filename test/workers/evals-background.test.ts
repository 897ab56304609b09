/**
 * Evals on the durable queue (issue 23): `POST /eval-runs?background=true` answers 202 with the
 * job, the JobQueue object runs the eval and stores it as the caller's run under the job's id,
 * and a schedule whose endpoint is `/eval-runs` queues the same job at each occurrence.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import type { Env } from "../../src/index.js";
import { scriptModel, type Turn } from "../support/model-script.js";
import { until } from "../support/until.js";
import { call, isolatedJwt, JSON_BODY } from "./worker-client.js";

/** The queue object runs with the worker's own bindings: its model is the "queue" channel. */
const queueModel = (turns: Turn[]) => scriptModel(env.MODEL_SERVER_URL, turns, { channel: "queue" });

const tag = crypto.randomUUID().slice(0, 8);
const A = `evbg-a-${tag}`;
const B = `evbg-b-${tag}`;
const SCOPES = ["evals:read", "evals:write", "schedules:read", "schedules:write"];
type Who = "A" | "B" | "reader";
const who: Record<Who, Record<string, string>> = { A: {}, B: {}, reader: {} };
let E: Partial<Env>;

const as = (w: Who, method: string, path: string, body?: unknown) =>
  call(path, { method, ...(body === undefined ? {} : { headers: JSON_BODY, body: JSON.stringify(body) }) }, E, who[w]);
/** The queue's job, read by the suite's admin (the security key of the worker's own env). */
const jobOf = (id: string) => call(`/queue/jobs/${id}`).then((r) => r.body);
/** Every eval job this file's users queued (read by the admin). */
const evalJobsOfUsers = async () => {
  const page = await call("/queue/jobs?limit=200&sort_by=created_at&sort_order=desc");
  return (page.body.data as Array<{ user_id: string | null; job_type: string }>).filter(
    (j) => j.job_type === "eval_run" && (j.user_id === A || j.user_id === B),
  );
};

const verdict = (score: number) => JSON.stringify({ accuracy_score: score, accuracy_reason: `scored ${score}` });
const accuracy = { agent_id: "assistant", eval_type: "accuracy", input: "What is 6 * 7?", expected_output: "42" };

beforeAll(async () => {
  const jwt = await isolatedJwt(`evals-bg-${tag}`);
  E = jwt.env;
  who.A = await jwt.bearer(A, SCOPES);
  who.B = await jwt.bearer(B, SCOPES);
  who.reader = await jwt.bearer(`evbg-reader-${tag}`, ["evals:read"]);
});

describe("POST /eval-runs?background=true", () => {
  it("answers 202 with the job; the queue stores the eval as the caller's run under the job's id", async () => {
    const script = await queueModel([{ text: "42" }, { text: verdict(9) }]);
    const accepted = await as("A", "POST", "/eval-runs?background=true", { ...accuracy, name: `bg-${tag}` });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual({
      run_id: expect.any(String),
      session_id: "",
      status: "PENDING",
      job_id: expect.any(String),
    });
    const { run_id: runId, job_id: jobId } = accepted.body;
    expect(jobId).toBe(runId);

    const run = await until(
      () => as("A", "GET", `/eval-runs/${runId}`),
      (r) => r.status === 200,
      "the queued eval's run",
    );
    expect(run.body).toMatchObject({
      id: runId,
      agent_id: "assistant",
      name: `bg-${tag}`,
      user_id: A,
      eval_type: "accuracy",
      eval_data: { avg_score: 9, results: [{ output: "42", score: 9 }] },
      eval_input: { input: "What is 6 * 7?", expected_output: "42", num_iterations: 1 },
    });
    expect((await script.requests()).length).toBe(2);
    // The job shows how it ended, and names the eval run it stored.
    const job = await until(
      () => jobOf(jobId),
      (j) => j.status === "completed",
      "the eval job to complete",
    );
    expect(job).toMatchObject({
      job_type: "eval_run",
      component_type: "agent",
      component_id: "assistant",
      user_id: A,
      attempt: 1,
      error: null,
      payload: { eval_run_id: runId, input: { eval_type: "accuracy", expected_output: "42" } },
    });
    // Another user does not see it; the owner's listing holds it once.
    expect((await as("B", "GET", `/eval-runs/${runId}`)).status).toBe(404);
    expect((await as("B", "GET", "/eval-runs?limit=100")).body.data).toEqual([]);
    const mine = await as("A", "GET", "/eval-runs?limit=100");
    expect(mine.body.data.filter((r: { id: string }) => r.id === runId)).toHaveLength(1);
  });

  it("checks the request as the foreground route does, before anything is queued", async () => {
    const before = (await evalJobsOfUsers()).length;
    const cases: Array<[unknown, number]> = [
      [{ ...accuracy, expected_output: undefined }, 400],
      [{ ...accuracy, agent_id: undefined }, 400],
      [{ ...accuracy, team_id: "writing-desk" }, 400],
      [{ ...accuracy, agent_id: "no-such-agent" }, 404],
      [{ ...accuracy, model_provider: "no-such-provider", model_id: "m" }, 400],
      [{ agent_id: "assistant", eval_type: "agent_as_judge", input: "x" }, 400],
      [{ ...accuracy, eval_type: "vibes" }, 422],
      [{ ...accuracy, unknown_field: 1 }, 422],
    ];
    for (const [body, status] of cases) {
      const res = await as("A", "POST", "/eval-runs?background=true", body);
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), status]);
      expect(res.body).toMatchObject({ detail: expect.any(String), error_id: expect.any(String) });
    }
    expect((await as("A", "POST", "/eval-runs?background=maybe", accuracy)).status).toBe(422);
    // An unknown database is a 404; a reader may not queue an eval.
    expect((await as("A", "POST", "/eval-runs?background=true&db_id=no-such-db", accuracy)).status).toBe(404);
    expect((await as("reader", "POST", "/eval-runs?background=true", accuracy)).status).toBe(403);
    expect((await evalJobsOfUsers()).length).toBe(before);
  });

  it("a judge that gives no verdict fails the job (retried as the queue's rules say) and stores no run", async () => {
    // Each of the three attempts: the agent answers, the judge's call is refused.
    const refused = { error: { status: 400, message: "judge refused" } };
    await queueModel([{ text: "42" }, refused, { text: "42" }, refused, { text: "42" }, refused]);
    const accepted = await as("A", "POST", "/eval-runs?background=true", accuracy);
    expect(accepted.status).toBe(202);
    const job = await until(
      () => jobOf(accepted.body.job_id),
      (j) => j.status === "failed",
      "the eval job to fail",
      { ms: 40_000, every: 250 },
    );
    expect(job.attempt).toBe(3);
    expect(job.error).toMatch(/the judge gave no verdict.*judge refused/);
    expect((await as("A", "GET", `/eval-runs/${accepted.body.run_id}`)).status).toBe(404);
  });
});

describe("eval schedules (endpoint /eval-runs)", () => {
  const schedule = (fields: Record<string, unknown>) =>
    as("A", "POST", "/schedules", {
      name: `ev-${crypto.randomUUID().slice(0, 8)}`,
      cron_expr: "0 3 29 2 *",
      endpoint: "/eval-runs",
      payload: accuracy,
      ...fields,
    });

  it("refuses a payload that is not a valid EvalRunInput (422), at create and at update", async () => {
    for (const payload of [
      { ...accuracy, expected_output: undefined },
      { ...accuracy, agent_id: "no-such-agent" },
      { ...accuracy, eval_type: "vibes" },
      { ...accuracy, message: "a run field" },
      { eval_type: "accuracy", input: "x", expected_output: "y" },
      null,
    ]) {
      const res = await schedule({ payload });
      expect([JSON.stringify(payload), res.status]).toEqual([JSON.stringify(payload), 422]);
      expect(res.body).toMatchObject({ detail: expect.stringMatching(/payload/), error_id: "validation_error" });
    }
    const ok = await schedule({});
    expect(ok.status).toBe(201);
    const bad = await as("A", "PATCH", `/schedules/${ok.body.id}`, { payload: { ...accuracy, input: "" } });
    expect(bad.status).toBe(422);
    // A run payload on the eval endpoint is refused; the eval payload on a run endpoint too.
    expect((await as("A", "PATCH", `/schedules/${ok.body.id}`, { payload: { message: "hi" } })).status).toBe(422);
    expect((await as("A", "PATCH", `/schedules/${ok.body.id}`, { endpoint: "/agents/assistant/runs" })).status).toBe(
      422,
    );
    expect((await as("A", "GET", `/schedules/${ok.body.id}`)).body).toMatchObject({
      endpoint: "/eval-runs",
      payload: accuracy,
    });
  });

  it("a triggered eval schedule queues the eval as its owner's; its attempt names the eval run and settles", async () => {
    await queueModel([{ text: "42" }, { text: verdict(6) }]);
    const created = await schedule({ payload: { ...accuracy, name: `sched-${tag}` } });
    expect(created.status).toBe(201);
    const attempt = await as("A", "POST", `/schedules/${created.body.id}/trigger`);
    expect(attempt.status).toBe(200);
    expect(attempt.body).toMatchObject({
      status: "running",
      run_id: expect.any(String),
      input: { ...accuracy, name: `sched-${tag}` },
    });
    const runId = attempt.body.run_id as string;
    const run = await until(
      () => as("A", "GET", `/eval-runs/${runId}`),
      (r) => r.status === 200,
      "the scheduled eval's run",
    );
    expect(run.body).toMatchObject({ id: runId, user_id: A, name: `sched-${tag}`, eval_data: { avg_score: 6 } });
    expect((await as("B", "GET", `/eval-runs/${runId}`)).status).toBe(404);
    const settled = await until(
      () => as("A", "GET", `/schedules/${created.body.id}/runs/${attempt.body.id}`),
      (r) => r.body.status !== "running",
      "the attempt to settle",
    );
    expect(settled.body).toMatchObject({ status: "success", run_id: runId, error: null });
  });
});
