import { expect, it } from "vitest";
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
}
