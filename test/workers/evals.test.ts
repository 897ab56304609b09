/**
 * agno's `/eval-runs` routes through the Worker (issue 23): an eval is run against the served
 * agent on the deployment's (scripted) model, each run is a record of its own, and with per-user
 * isolation a user reads, renames and deletes only their own runs.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import type { Env } from "../../src/index.js";
import { defaultModelRegistry } from "../../src/models/default-model-registry.js";
import { openAICompatibleProvider } from "../../src/models/openai-compatible-provider.js";
import { scriptModel } from "../support/model-script.js";
import { call, isolatedJwt, JSON_BODY, modelEnv } from "./worker-client.js";

const tag = crypto.randomUUID().slice(0, 8);
const A = `eval-a-${tag}`;
const B = `eval-b-${tag}`;
const SCOPES = ["evals:read", "evals:write", "evals:delete"];
type Who = "A" | "B" | "admin" | "reader";
const who: Record<Who, Record<string, string>> = { A: {}, B: {}, admin: {}, reader: {} };
let E: Partial<Env>;
let jwtEnv: Partial<Env>;

const as = (w: Who, method: string, path: string, body?: unknown) =>
  call(path, { method, ...(body === undefined ? {} : { headers: JSON_BODY, body: JSON.stringify(body) }) }, E, who[w]);

const verdict = (score: number) => JSON.stringify({ accuracy_score: score, accuracy_reason: `scored ${score}` });
const accuracy = { agent_id: "assistant", eval_type: "accuracy", input: "What is 10 * 5?", expected_output: "50" };

let script: Awaited<ReturnType<typeof modelEnv>>["script"];

beforeAll(async () => {
  const jwt = await isolatedJwt(`evals-${tag}`);
  jwtEnv = jwt.env;
  // The agent answers, then the judge (the same deployment model) answers; turn by turn.
  const model = await modelEnv([
    { text: "50" },
    { text: verdict(8) },
    { text: "fifty" },
    { text: verdict(6) },
    { text: "B's answer" },
    { text: verdict(3) },
    { toolCalls: [{ name: "roll_dice", arguments: { count: 2, sides: 6 } }] },
    { text: "rolled" },
    { text: "Hello there, friend." },
    { text: JSON.stringify({ score: 9, reason: "warm" }) },
    { text: "timed" },
  ]);
  script = model.script;
  E = { ...jwt.env, ...model.env };
  who.A = await jwt.bearer(A, SCOPES);
  who.B = await jwt.bearer(B, SCOPES);
  who.admin = await jwt.bearer(`eval-admin-${tag}`, ["agent_os:admin"]);
  who.reader = await jwt.bearer(`eval-reader-${tag}`, ["evals:read"]);
});

const ids = { a1: "", a2: "", b1: "" };

describe("/eval-runs", () => {
  it("an accuracy eval judged by the scripted model yields the scripted score; two runs are two records", async () => {
    const first = await as("A", "POST", "/eval-runs", { ...accuracy, name: "math" });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      id: expect.any(String),
      agent_id: "assistant",
      model_id: "gpt-test",
      model_provider: expect.any(String),
      team_id: null,
      workflow_id: null,
      name: "math",
      evaluated_component_name: "Assistant",
      user_id: A,
      eval_type: "accuracy",
      eval_data: {
        results: [{ input: "What is 10 * 5?", output: "50", expected_output: "50", score: 8, reason: "scored 8" }],
        avg_score: 8,
        mean_score: 8,
        min_score: 8,
        max_score: 8,
        std_dev_score: 0,
      },
      eval_input: {
        input: "What is 10 * 5?",
        expected_output: "50",
        num_iterations: 1,
        additional_guidelines: null,
        additional_context: null,
      },
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const second = await as("A", "POST", "/eval-runs", { ...accuracy, name: "math" });
    expect(second.status).toBe(200);
    expect(second.body.eval_data.avg_score).toBe(6);
    expect(second.body.id).not.toBe(first.body.id);
    ids.a1 = first.body.id;
    ids.a2 = second.body.id;

    const list = await as("A", "GET", "/eval-runs?sort_by=created_at&limit=50");
    expect(list.status).toBe(200);
    expect(list.body.data.map((r: { id: string }) => r.id).sort()).toEqual([ids.a1, ids.a2].sort());
    expect(list.body.meta).toMatchObject({ page: 1, limit: 50, total_count: 2, total_pages: 1 });
    expect((await as("A", "GET", `/eval-runs/${ids.a1}`)).body).toEqual(first.body);

    // The judge was asked for agno's structured verdict, with the rubric and the tagged answer.
    const judged = (await script.requests())[1]!.body as { messages: Array<{ content: string }> };
    expect(judged.messages.at(-1)!.content).toContain("<agent_output>\n50\n</agent_output>");
  });

  it("B cannot see, rename or delete A's runs; B's own are B's", async () => {
    const b = await as("B", "POST", "/eval-runs", accuracy);
    expect(b.status).toBe(200);
    expect(b.body).toMatchObject({ user_id: B, eval_data: { avg_score: 3 } });
    ids.b1 = b.body.id;

    expect((await as("B", "GET", `/eval-runs/${ids.a1}`)).status).toBe(404);
    const rename = await as("B", "PATCH", `/eval-runs/${ids.a1}`, { name: "hijacked" });
    expect(rename.status).toBe(404);
    expect(rename.body).toMatchObject({ detail: expect.any(String), error_id: "not_found" });
    expect((await as("B", "DELETE", "/eval-runs", { eval_run_ids: [ids.a1, ids.a2] })).status).toBe(204);
    const listB = await as("B", "GET", "/eval-runs?limit=100");
    expect(listB.body.data.map((r: { id: string }) => r.id)).toEqual([ids.b1]);
    // A's runs are as they were.
    const a1 = await as("A", "GET", `/eval-runs/${ids.a1}`);
    expect(a1.status).toBe(200);
    expect(a1.body.name).toBe("math");
    expect((await as("A", "GET", `/eval-runs/${ids.a2}`)).status).toBe(200);

    // The admin sees every user's.
    const all = await as("admin", "GET", `/eval-runs?agent_id=assistant&limit=1000`);
    const allIds = all.body.data.map((r: { id: string }) => r.id);
    expect(allIds).toEqual(expect.arrayContaining([ids.a1, ids.a2, ids.b1]));
  });

  it("renames, filters by type and deletes the caller's own", async () => {
    const renamed = await as("A", "PATCH", `/eval-runs/${ids.a2}`, { name: "second try" });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: ids.a2, name: "second try", user_id: A });
    expect((await as("A", "GET", "/eval-runs?eval_types=reliability")).body.data).toEqual([]);
    expect((await as("A", "GET", "/eval-runs?eval_types=accuracy,performance&type=agent")).body.meta.total_count).toBe(
      2,
    );
    expect((await as("A", "GET", "/eval-runs?type=team")).body.data).toEqual([]);
    expect((await as("A", "DELETE", "/eval-runs", { eval_run_ids: [ids.a2] })).status).toBe(204);
    expect((await as("A", "GET", `/eval-runs/${ids.a2}`)).status).toBe(404);
  });

  it("runs reliability, agent-as-judge and performance evals against the served agent", async () => {
    const reliability = await as("A", "POST", "/eval-runs", {
      agent_id: "assistant",
      eval_type: "reliability",
      input: "Roll two dice",
      expected_tool_calls: ["roll_dice"],
    });
    expect(reliability.status).toBe(200);
    expect(reliability.body).toMatchObject({
      eval_type: "reliability",
      agent_id: "assistant",
      user_id: A,
      eval_data: { eval_status: "PASSED", passed_tool_calls: ["roll_dice"], failed_tool_calls: [] },
      eval_input: { expected_tool_calls: ["roll_dice"] },
    });

    const judged = await as("A", "POST", "/eval-runs", {
      agent_id: "assistant",
      eval_type: "agent_as_judge",
      input: "Greet me",
      criteria: "The greeting is warm",
      scoring_strategy: "numeric",
      threshold: 7,
    });
    expect(judged.status).toBe(200);
    expect(judged.body).toMatchObject({
      eval_type: "agent_as_judge",
      agent_id: "assistant",
      model_id: "gpt-test",
      eval_data: {
        run_id: judged.body.id,
        pass_rate: 100,
        avg_score: 9,
        results: [{ output: "Hello there, friend.", score: 9, passed: true }],
      },
      eval_input: { criteria: "The greeting is warm", scoring_strategy: "numeric", threshold: 7 },
    });

    const perf = await as("A", "POST", "/eval-runs", {
      agent_id: "assistant",
      eval_type: "performance",
      input: "Say anything",
    });
    expect(perf.status).toBe(200);
    expect(perf.body).toMatchObject({
      eval_type: "performance",
      agent_id: "assistant",
      eval_input: { num_iterations: 1, warmup_runs: 0 },
      // A Worker reports no heap: only time is measured, and the run says so.
      eval_data: { result: { memory_measured: false, avg_memory_usage: 0 } },
    });
    expect(perf.body.eval_data.result.avg_run_time).toBeGreaterThan(0);
    expect(perf.body.eval_data.runs).toHaveLength(1);
  });

  it("answers bad input with a 4xx before any model is called", async () => {
    const before = (await script.requests()).length;
    const cases: Array<[unknown, number]> = [
      [{ ...accuracy, expected_output: undefined }, 400],
      [{ ...accuracy, agent_id: undefined }, 400],
      [{ ...accuracy, team_id: "writing-desk" }, 400],
      [{ ...accuracy, agent_id: "no-such-agent" }, 404],
      [{ ...accuracy, eval_type: "vibes" }, 422],
      [{ ...accuracy, input: "" }, 422],
      [{ ...accuracy, num_iterations: 0 }, 422],
      [{ ...accuracy, unknown_field: 1 }, 422],
      [{ agent_id: "assistant", eval_type: "reliability", input: "x" }, 400],
      [{ agent_id: "assistant", eval_type: "agent_as_judge", input: "x" }, 400],
      [{ ...accuracy, model_provider: "no-such-provider", model_id: "m" }, 400],
    ];
    for (const [body, status] of cases) {
      const res = await as("A", "POST", "/eval-runs", body);
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), status]);
      expect(res.body).toMatchObject({ detail: expect.any(String) });
    }
    expect((await as("A", "GET", "/eval-runs?eval_types=accuracy,vibes")).status).toBe(422);
    expect((await as("A", "GET", "/eval-runs?sort_by=eval_data")).status).toBe(422);
    expect((await as("A", "GET", "/eval-runs?limit=0")).status).toBe(422);
    expect((await as("A", "PATCH", `/eval-runs/${ids.a1}`, { name: "" })).status).toBe(422);
    expect((await as("A", "DELETE", "/eval-runs", { eval_run_ids: [] })).status).toBe(422);
    expect((await as("A", "GET", `/eval-runs/${ids.a1}?table=other_table`)).status).toBe(404);
    expect((await script.requests()).length).toBe(before);
  });

  it("model_provider with model_id runs a copy of the agent on that model, judged by the agent's own (agno's)", async () => {
    // The app registered a provider; the deployment's model (openai:gpt-test) judges.
    const other = await scriptModel(env.MODEL_SERVER_URL, [{ text: "fifty" }]);
    defaultModelRegistry.register({ "eval-other": openAICompatibleProvider({ baseURL: other.baseURL }) });
    const own = await modelEnv([{ text: verdict(4) }, { text: "50" }, { text: verdict(10) }]);
    const E2 = { ...jwtEnv, ...own.env };
    const post = (body: unknown) =>
      call("/eval-runs", { method: "POST", headers: JSON_BODY, body: JSON.stringify(body) }, E2, who.A);

    const overridden = await post({ ...accuracy, model_provider: "Eval-Other", model_id: "other-model" });
    expect(overridden.status).toBe(200);
    expect(overridden.body).toMatchObject({
      agent_id: "assistant",
      model_id: "other-model",
      model_provider: "eval-other",
      user_id: A,
      eval_data: { results: [{ output: "fifty", score: 4 }], avg_score: 4 },
    });
    const answered = await other.requests();
    expect(answered).toHaveLength(1);
    expect(answered[0]!.body).toMatchObject({ model: "other-model" });
    const judged = await own.script.requests();
    expect(judged).toHaveLength(1);
    expect(judged[0]!.body).toMatchObject({ model: "gpt-test" });
    expect((judged[0]!.body as { messages: Array<{ content: string }> }).messages.at(-1)!.content).toContain(
      "<agent_output>\nfifty\n</agent_output>",
    );

    // The served agent was not changed; naming its own model runs it as it is (no provider lookup).
    const same = await post({ ...accuracy, model_provider: "openai", model_id: "gpt-test" });
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ model_id: "gpt-test", eval_data: { results: [{ output: "50", score: 10 }] } });
    expect(await other.requests()).toHaveLength(1);
    expect((await own.script.requests()).map((r) => (r.body as { model: string }).model)).toEqual([
      "gpt-test",
      "gpt-test",
      "gpt-test",
    ]);
  });

  it("needs the evals scopes: a reader may list but not run, rename or delete", async () => {
    expect((await as("reader", "GET", "/eval-runs")).status).toBe(200);
    expect((await as("reader", "POST", "/eval-runs", accuracy)).status).toBe(403);
    expect((await as("reader", "PATCH", `/eval-runs/${ids.a1}`, { name: "x" })).status).toBe(403);
    expect((await as("reader", "DELETE", "/eval-runs", { eval_run_ids: [ids.a1] })).status).toBe(403);
  });
});
