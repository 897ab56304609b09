/**
 * agno's model override (`prepareEval`), and the `eval_run` job (issue 23): delivered at least once, it stores one eval run, under its own
 * id, as its owner's; a judge that gives no verdict fails the attempt and leaves no row.
 */
import { describe, expect, inject, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { MemoryDb } from "../../src/db/memory/index.js";
import { BadRequestError } from "../../src/errors.js";
import { evalRunInputSchema } from "../../src/evals/eval-run-input.js";
import { evalComponents, prepareEval, runPreparedEval } from "../../src/evals/run-eval-input.js";
import { defaultModelRegistry } from "../../src/models/default-model-registry.js";
import { openAICompatibleProvider } from "../../src/models/openai-compatible-provider.js";
import { evalJobInput, executeEvalJob } from "../../src/queue/eval-job.js";
import { Team } from "../../src/team/team.js";
import { drainQueue } from "../support/drain-queue.js";
import { scriptedModel } from "../support/agent-kit.js";
import { scriptModel } from "../support/model-script.js";

const verdict = (score: number) => JSON.stringify({ accuracy_score: score, accuracy_reason: `scored ${score}` });
const input = evalRunInputSchema.parse({
  agent_id: "calc",
  eval_type: "accuracy",
  input: "What is 6 * 7?",
  expected_output: "42",
  name: "queued",
});
const limits = { userId: "ann", maxAttempts: 3, maxDepth: 100 };

async function setup(turns: Parameters<typeof scriptedModel>[0]) {
  const { model, script } = await scriptedModel(turns);
  const db = new MemoryDb();
  const agent = new Agent({ id: "calc", name: "Calculator", model, db });
  const { job } = await db.jobs.enqueueJob(evalJobInput(input, limits));
  return { db, agent, script, job };
}

describe("eval_run jobs", () => {
  it("runs the eval as the job's user and stores it under the job's id; a repeat delivery stores nothing more", async () => {
    const { db, agent, script, job } = await setup([{ text: "42" }, { text: verdict(8) }]);
    expect(job).toMatchObject({ job_type: "eval_run", component_type: "agent", component_id: "calc", user_id: "ann" });
    expect(job.payload).toMatchObject({ eval_run_id: job.id, input: { eval_type: "accuracy" } });
    await drainQueue(db, { components: [agent] });
    expect(await db.jobs.getJob(job.id)).toMatchObject({ status: "COMPLETED", attempt: 1, error: null });
    const run = await db.evals.get(job.id, { userId: "ann" });
    expect(run).toMatchObject({
      run_id: job.id,
      user_id: "ann",
      name: "queued",
      agent_id: "calc",
      eval_data: { avg_score: 8 },
    });
    // Delivered again (a lease that lapsed after the row was stored): done at once, no model call.
    expect(await executeEvalJob(job, [agent], db)).toEqual({ status: "COMPLETED" });
    expect(await script.requests()).toHaveLength(2);
    expect((await db.evals.list()).total_count).toBe(1);
  });

  it("a delivery that finds its run stored by another meanwhile ends completed, leaving one row", async () => {
    const { db, agent, job } = await setup([
      { text: "42" },
      { text: verdict(7) },
      { text: "42" },
      { text: verdict(3) },
    ]);
    expect(await executeEvalJob(job, [agent], db)).toEqual({ status: "COMPLETED" });
    // The second delivery checked before the first stored its row: its own store conflicts.
    let checks = 0;
    const racing = Object.assign(Object.create(db) as MemoryDb, {
      evals: Object.assign(Object.create(db.evals) as MemoryDb["evals"], {
        get: (id: string) => (checks++ === 0 ? Promise.resolve(null) : db.evals.get(id)),
      }),
    });
    expect(await executeEvalJob(job, [agent], racing)).toEqual({ status: "COMPLETED" });
    expect(checks).toBe(2);
    expect((await db.evals.list()).data.map((r) => [r.run_id, r.eval_data.avg_score])).toEqual([[job.id, 7]]);
  });

  it("a judge that gives no verdict fails the attempt (retryable) and leaves no row; a retry stores the run", async () => {
    const { db, agent, job } = await setup([
      { text: "42" },
      { error: { status: 400, message: "judge refused" } },
      { text: "42" },
      { text: verdict(5) },
    ]);
    const failed = await executeEvalJob(job, [agent], db);
    expect(failed).toMatchObject({ status: "FAILED", retryable: true });
    expect(failed.error).toMatch(new RegExp(`eval run ${job.id}: the judge gave no verdict .*judge refused`));
    expect(await db.evals.get(job.id)).toBeNull();
    expect(await executeEvalJob(job, [agent], db)).toEqual({ status: "COMPLETED" });
    expect(await db.evals.get(job.id)).toMatchObject({ eval_data: { avg_score: 5 } });
  });

  it("fails for good when the agent is no longer served", async () => {
    const { db, job } = await setup([]);
    const outcome = await executeEvalJob(job, [], db);
    expect(outcome).toMatchObject({ status: "FAILED", retryable: false });
    expect(outcome.error).toMatch(/Agent with id 'calc' not found/);
    expect((await db.evals.list()).total_count).toBe(0);
  });
});

describe("prepareEval", () => {
  it("runs a copy of a team on the model the input names; the team's own model judges, the team is unchanged", async () => {
    const own = await scriptedModel([{ text: verdict(6) }]);
    const alt = await scriptModel(inject("modelServerUrl"), [{ text: "Lyon" }]);
    defaultModelRegistry.register({ "alt-test": openAICompatibleProvider({ baseURL: alt.baseURL }) });
    const db = new MemoryDb();
    const team = new Team({
      id: "desk",
      name: "Desk",
      model: own.model,
      members: [new Agent({ id: "geo", model: own.model })],
      db,
    });
    const components = evalComponents((ref) => (ref.type === "team" && ref.id === "desk" ? team : undefined));
    const input = evalRunInputSchema.parse({
      team_id: "desk",
      eval_type: "accuracy",
      input: "Capital of France?",
      expected_output: "Paris",
      model_provider: "ALT-test",
      model_id: "m1",
    });
    const prepared = prepareEval(input, components, db);
    expect(prepared.judge).toBe(own.model);
    expect(team.model).toBe(own.model);
    const { record } = await runPreparedEval(prepared, { db, userId: "ann" });
    expect(record).toMatchObject({
      team_id: "desk",
      model_id: "m1",
      model_provider: "alt-test",
      user_id: "ann",
      eval_data: { results: [{ output: "Lyon", score: 6 }] },
    });
    expect((await alt.requests()).map((r) => (r.body as { model: string }).model)).toEqual(["m1"]);
    expect(await own.script.requests()).toHaveLength(1);
    expect(team.model).toBe(own.model);
    // A provider nobody registered is the caller's mistake (400), found before anything runs.
    expect(() => prepareEval({ ...input, model_provider: "nobody" }, components, db)).toThrow(BadRequestError);
    expect(() => prepareEval({ ...input, team_id: "gone" }, components, db)).toThrow(/Team with id 'gone' not found/);
  });
});
