import { expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { scriptModel } from "../../../support/model-script.js";
import { until } from "../../../support/until.js";
import { JSON_BODY, modelEnv } from "../../worker-client.js";
import { conformingCall } from "../check.js";

const json = (method: string, body: unknown): RequestInit => ({
  method,
  headers: JSON_BODY,
  body: JSON.stringify(body),
});

/** agno's eval router: every route answered, each answer parsed with agno's EvalSchema. */
export function evalsScenarios(): void {
  const tag = crypto.randomUUID().slice(0, 8);

  it("eval runs: run, listed, read, renamed, deleted", async () => {
    const { env } = await modelEnv([
      { text: "Paris" },
      { text: JSON.stringify({ accuracy_score: 10, accuracy_reason: "exact" }) },
    ]);
    const body = {
      agent_id: "assistant",
      eval_type: "accuracy",
      input: "Capital of France?",
      expected_output: "Paris",
      name: `conf-${tag}`,
    };
    const run = await conformingCall("/eval-runs", json("POST", body), env);
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ eval_type: "accuracy", eval_data: { avg_score: 10 } });
    const id = run.body.id as string;
    expect((await conformingCall("/eval-runs", json("POST", { ...body, agent_id: null }), env)).status).toBe(400);

    const listed = await conformingCall("/eval-runs?agent_id=assistant&eval_types=accuracy&limit=100");
    expect(listed.body.data.map((r: { id: string }) => r.id)).toContain(id);
    expect((await conformingCall(`/eval-runs/${id}`)).body).toEqual(run.body);
    expect((await conformingCall(`/eval-runs/no-such-${tag}`)).status).toBe(404);
    const renamed = await conformingCall(`/eval-runs/${id}`, json("PATCH", { name: `renamed-${tag}` }));
    expect(renamed.body).toMatchObject({ id, name: `renamed-${tag}` });
    expect((await conformingCall("/eval-runs", json("DELETE", { eval_run_ids: [id] }))).status).toBe(204);
    expect((await conformingCall(`/eval-runs/${id}`)).status).toBe(404);
  });

  it("eval runs in the background: 202 with agno's AcceptedRunResponse, then the stored run", async () => {
    // The queue object answers from the scripted server's "queue" channel.
    await scriptModel(
      env.MODEL_SERVER_URL,
      [{ text: "Paris" }, { text: JSON.stringify({ accuracy_score: 9, accuracy_reason: "right" }) }],
      { channel: "queue" },
    );
    const body = {
      agent_id: "assistant",
      eval_type: "accuracy",
      input: "Capital of France?",
      expected_output: "Paris",
    };
    const accepted = await conformingCall("/eval-runs?background=true", json("POST", body));
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({ status: "PENDING", job_id: accepted.body.run_id });
    const run = await until(
      () => conformingCall(`/eval-runs/${accepted.body.run_id as string}`),
      (r) => r.status === 200,
      "the queued eval",
    );
    expect(run.body).toMatchObject({ id: accepted.body.run_id, eval_data: { avg_score: 9 } });
    expect((await conformingCall("/eval-runs", json("DELETE", { eval_run_ids: [run.body.id] }))).status).toBe(204);
  });
}
