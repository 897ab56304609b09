import { expect, it } from "vitest";
import { call, JSON_BODY, modelEnv, parseSse, send } from "./worker-client.js";

/*
 * Over HTTP: the example `blog-post` workflow's writer publishes with `publish_draft`, a tool a
 * person confirms first. Past the review, the writer's call pauses the workflow run (an executor
 * requirement); the continue route resolves it with `executor_requirements`, the writer's run
 * goes on and the workflow completes.
 */
const post = (body: Record<string, unknown>) => ({ method: "POST", headers: JSON_BODY, body: JSON.stringify(body) });

it("a step's agent pausing for a tool pauses the workflow run; the continue route resolves it and the run completes", async () => {
  const { env: e, script } = await modelEnv([
    { text: "Tides: two a day." },
    { toolCalls: [{ id: "pub-1", name: "publish_draft", arguments: { title: "Tides" } }] },
    { text: "Published 'Tides'." },
  ]);
  const session = `wxp-${Date.now().toString(36)}`;
  const paused = await call(
    "/workflows/blog-post/runs",
    post({ message: "Tides", stream: false, session_id: session }),
    e,
  );
  const runId = paused.body.run_id as string;
  const review = paused.body.step_requirements[0].step_id as string;

  // Past the review, the writer asks to publish: a stream that ends in the executor pause.
  const res = await send(
    `/workflows/blog-post/runs/${runId}/continue`,
    post({ step_requirements: [{ step_id: review, confirmed: true }] }),
    e,
  );
  expect(res.status).toBe(200);
  const frames = parseSse(await res.text());
  expect(frames.map((f) => f.event).slice(-3)).toEqual(["RunPaused", "StepExecutorPaused", "WorkflowPaused"]);
  const read = await call(`/workflows/blog-post/runs/${runId}`, {}, e);
  expect(read.body).toMatchObject({ status: "PAUSED", pause_kind: "executor", paused_step_name: "write" });
  const req = read.body.step_requirements.at(-1);
  expect(req).toMatchObject({
    step_name: "write",
    requires_executor_input: true,
    executor_id: "writer",
    executor_type: "agent",
    executor_requirements: [{ id: "pub-1", kind: "confirmation", tool_execution: { tool_name: "publish_draft" } }],
  });
  expect(req.executor_run_id).toBe(read.body.step_executor_runs.at(-1).run_id);

  // Bad decisions are 4xx with the usual body, and leave the run PAUSED.
  for (const bad of [
    [{ step_id: req.step_id, confirmed: true }],
    [{ step_id: req.step_id, executor_requirements: [{ id: "pub-1", confirmed: "yes" }] }],
    [{ step_id: req.step_id, executor_requirements: [{ id: "someone-else", confirmed: true }] }],
  ]) {
    const answer = await call(
      `/workflows/blog-post/runs/${runId}/continue`,
      post({ step_requirements: bad, stream: false }),
      e,
    );
    expect(answer.status, JSON.stringify(bad)).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
    expect(answer.body).toMatchObject({ detail: expect.any(String), error_id: expect.any(String) });
  }
  expect((await call(`/workflows/blog-post/runs/${runId}`, {}, e)).body.status).toBe("PAUSED");

  const done = await call(
    `/workflows/blog-post/runs/${runId}/continue`,
    post({
      step_requirements: [{ step_id: req.step_id, executor_requirements: [{ id: "pub-1", confirmed: true }] }],
      stream: false,
    }),
    e,
  );
  expect(done.status).toBe(200);
  expect(done.body).toMatchObject({ run_id: runId, status: "COMPLETED", content: "Published 'Tides'." });
  // The writer's one run, continued: the model saw its tool's answer.
  expect(done.body.step_executor_runs.map((r: { agent_id: string; status: string }) => [r.agent_id, r.status])).toEqual(
    [
      ["researcher", "COMPLETED"],
      ["writer", "COMPLETED"],
    ],
  );
  const calls = await script.requests();
  expect(calls).toHaveLength(3);
  expect(JSON.stringify(calls[2]!.body)).toContain(JSON.stringify('published "Tides"').slice(1, -1));
  // The tool's change to the session state is the workflow session's.
  const stored = await call(`/sessions/${session}?type=workflow`, {}, e);
  expect(stored.body.session_state).toMatchObject({ published: ["Tides"] });
});
