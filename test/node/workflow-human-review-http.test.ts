import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BadRequestError } from "../../src/errors.js";
import { AgentOS } from "../../src/os/agent-os.js";
import { HumanReview, Loop, Parallel, Router, Step, StepInput, Workflow } from "../../src/sdk.js";
import { dbTargets, openTestDb, type TestDb } from "../support/db-targets.js";

/**
 * agno 3.0's HumanReview fields over HTTP: a run paused by an output review, an iteration
 * review, a route selection or a failing step, continued with
 * `POST /workflows/{id}/runs/{run_id}/continue`, the requirements on the wire in agno's names.
 */
describe.each(dbTargets().map((t) => [t.name, t] as const))("workflow reviews over HTTP on %s", (_name, target) => {
  let t: TestDb;
  let os: AgentOS;
  const ran: string[] = [];
  let flaky = 0;
  beforeAll(async () => {
    t = openTestDb(target);
    await t.db.init();
    const db = t.db;
    os = new AgentOS({
      auth: { mode: "none" },
      workflows: [
        new Workflow({
          id: "drafts",
          name: "drafts",
          db,
          steps: [
            new Step({
              name: "draft",
              humanReview: new HumanReview({ requiresOutputReview: true, onReject: "retry", maxRetries: 1 }),
              executor: (i: StepInput) =>
                i.additional_data.rejection_feedback
                  ? `revised: ${String(i.additional_data.rejection_feedback)}`
                  : "draft",
            }),
            new Step({ name: "final", executor: (i: StepInput) => `final ${String(i.previous_step_content)}` }),
          ],
        }),
        new Workflow({
          id: "refine",
          name: "refine",
          db,
          steps: [
            new Loop({
              name: "polish",
              maxIterations: 3,
              humanReview: new HumanReview({ requiresIterationReview: true, onReject: "retry" }),
              steps: [(i: StepInput) => `pass${i.additional_data.rejection_feedback ? " (again)" : ""}`],
            }),
          ],
        }),
        new Workflow({
          id: "pick",
          name: "pick",
          db,
          steps: [
            new Router({
              name: "route",
              humanReview: new HumanReview({ requiresUserInput: true, allowMultipleSelections: true }),
              selector: () => "a",
              choices: [
                new Step({ name: "a", executor: () => (ran.push("a"), "A") }),
                new Step({ name: "b", executor: () => (ran.push("b"), "B") }),
              ],
            }),
          ],
        }),
        new Workflow({
          id: "flaky",
          name: "flaky",
          db,
          steps: [
            new Step({
              name: "call",
              maxRetries: 0,
              humanReview: new HumanReview({ onError: "pause" }),
              executor: () => {
                if (flaky++ === 0) throw new BadRequestError("upstream is down");
                return "called";
              },
            }),
          ],
        }),
        new Workflow({
          id: "fan",
          name: "fan",
          db,
          steps: [
            new Parallel({
              name: "both",
              steps: [
                new Step({ name: "left", executor: () => (ran.push("left"), "L") }),
                new Step({
                  name: "right",
                  humanReview: new HumanReview({ requiresConfirmation: true }),
                  executor: () => (ran.push("right"), "R"),
                }),
              ],
            }),
          ],
        }),
      ],
    });
  });
  afterAll(() => t.close());

  /** The frames of an SSE body: each `event:` and its `data:`. */
  const parseSse = (text: string) =>
    text
      .split("\n\n")
      .filter((block) => block.includes("event: "))
      .map((block) => {
        const line = (key: string) =>
          block
            .split("\n")
            .find((l) => l.startsWith(key))!
            .slice(key.length);
        return { event: line("event: "), data: JSON.parse(line("data: ")) as Record<string, unknown> };
      });

  const call = async (path: string, body?: Record<string, unknown>) => {
    const res = await os.fetch(
      new Request(`http://os.test${path}`, {
        method: body ? "POST" : "GET",
        ...(body ? { body: JSON.stringify(body), headers: { "content-type": "application/json" } } : {}),
      }),
      { dbs: [t.db] },
      { waitUntil: () => undefined, passThroughOnException: () => undefined },
    );
    const text = await res.text();
    return {
      status: res.status,
      text,
      body: res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : null,
    };
  };
  const start = (id: string) => call(`/workflows/${id}/runs`, { message: "go", stream: false });
  const cont = (id: string, runId: string, body: Record<string, unknown>) =>
    call(`/workflows/${id}/runs/${runId}/continue`, { stream: false, ...body });

  it("output review: the requirement carries the output; a rejection runs it again with the feedback; an edit is kept", async () => {
    const paused = await start("drafts");
    expect(paused.status, paused.text).toBe(200);
    const req = paused.body.step_requirements[0];
    expect(req).toMatchObject({
      step_name: "draft",
      requires_output_review: true,
      output_review_message: "Review output of step 'draft'?",
      is_post_execution: true,
      on_reject: "retry",
      retry_count: 0,
      max_retries: 1,
      step_output: { content: "draft" },
    });
    const again = await cont("drafts", paused.body.run_id, {
      step_requirements: [{ step_id: req.step_id, confirmed: false, rejection_feedback: "shorter" }],
    });
    expect(again.body).toMatchObject({ status: "PAUSED" });
    const req2 = again.body.step_requirements.at(-1);
    expect(req2).toMatchObject({ retry_count: 1, step_output: { content: "revised: shorter" } });
    const done = await cont("drafts", paused.body.run_id, {
      step_requirements: [{ step_id: req2.step_id, confirmed: true, edited_output: "mine" }],
    });
    expect(done.body).toMatchObject({ status: "COMPLETED", content: "final mine" });

    // A second rejection past maxRetries cancels, as agno.
    const p = await start("drafts");
    const r1 = p.body.step_requirements[0];
    const p2 = await cont("drafts", p.body.run_id, { step_requirements: [{ step_id: r1.step_id, confirmed: false }] });
    const r2 = p2.body.step_requirements.at(-1);
    const cancelled = await cont("drafts", p.body.run_id, {
      step_requirements: [{ step_id: r2.step_id, confirmed: false }],
    });
    expect(cancelled.body).toMatchObject({ status: "CANCELLED", content: "Max retries (1) reached for step 'draft'" });
  });

  it("iteration review: streamed as StepOutputReview; reject runs one more iteration, approve ends the loop", async () => {
    const res = await os.fetch(
      new Request("http://os.test/workflows/refine/runs", {
        method: "POST",
        body: JSON.stringify({ message: "go" }),
        headers: { "content-type": "application/json" },
      }),
      { dbs: [t.db] },
      { waitUntil: () => undefined, passThroughOnException: () => undefined },
    );
    const frames = parseSse(await res.text());
    const review = frames.find((f) => f.event === "StepOutputReview")!;
    expect(review.data).toMatchObject({ step_name: "polish", requires_output_review: true });
    const runId = frames[0]!.data.run_id as string;
    const read = await call(`/workflows/refine/runs/${runId}`);
    const req = read.body.step_requirements[0];
    expect(req).toMatchObject({ step_type: "Loop", is_post_execution: true, step_output: { content: "pass" } });
    const again = await cont("refine", runId, {
      step_requirements: [{ step_id: req.step_id, confirmed: false, rejection_feedback: "more" }],
    });
    expect(again.body.step_requirements.at(-1).step_output).toMatchObject({ content: "pass (again)" });
    const done = await cont("refine", runId, {
      step_requirements: [{ step_id: again.body.step_requirements.at(-1).step_id, confirmed: true }],
    });
    expect(done.body).toMatchObject({ status: "COMPLETED", content: "pass (again)" });
    expect(done.body.step_results[0].steps).toHaveLength(2);
  });

  it("route selection: the choices on the wire; a bad pick is a 422 with detail and error_id; the picks run", async () => {
    ran.length = 0;
    const paused = await start("pick");
    const req = paused.body.step_requirements[0];
    expect(req).toMatchObject({
      requires_route_selection: true,
      available_choices: ["a", "b"],
      allow_multiple_selections: true,
      selected_choices: null,
    });
    const bad = await cont("pick", paused.body.run_id, {
      step_requirements: [{ step_id: req.step_id, selected_choices: ["z"] }],
    });
    expect(bad.status).toBe(422);
    expect(bad.body).toMatchObject({
      detail: expect.stringContaining("z is not one of"),
      error_id: expect.any(String),
    });
    const done = await cont("pick", paused.body.run_id, {
      step_requirements: [{ step_id: req.step_id, selected_choices: ["b", "a"] }],
    });
    expect(done.body).toMatchObject({ status: "COMPLETED", content: "A" });
    expect(ran).toEqual(["b", "a"]);
  });

  it("onError pause: error_requirements on the wire; without a decision a 422; retry runs the step again", async () => {
    const paused = await start("flaky");
    expect(paused.body).toMatchObject({
      status: "PAUSED",
      error_requirements: [{ step_name: "call", error_message: "upstream is down", retry_count: 0, decision: null }],
    });
    const runId = paused.body.run_id;
    const missing = await cont("flaky", runId, { step_requirements: [] });
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toContain("error_requirements");
    const notJson = await call(`/workflows/flaky/runs/${runId}/continue`, { error_requirements: "{", stream: false });
    expect(notJson).toMatchObject({ status: 422, body: { error_id: expect.any(String) } });
    const done = await cont("flaky", runId, {
      error_requirements: [{ step_id: paused.body.error_requirements[0].step_id, decision: "retry" }],
    });
    expect(done.body).toMatchObject({ status: "COMPLETED", content: "called" });
    expect(done.body).not.toHaveProperty("error_requirements");
  });

  it("a review inside a Parallel: the other branch runs once, its result kept through the continue", async () => {
    ran.length = 0;
    const paused = await start("fan");
    expect(paused.body).toMatchObject({
      status: "PAUSED",
      step_requirements: [{ step_name: "right", step_path: [0, 1] }],
    });
    expect(ran).toEqual(["left"]);
    const done = await cont("fan", paused.body.run_id, {
      step_requirements: [{ step_id: paused.body.step_requirements[0].step_id, confirmed: true }],
    });
    expect(done.body.status).toBe("COMPLETED");
    expect(ran).toEqual(["left", "right"]);
    expect(done.body.step_results[0].steps.map((s: { content: string }) => s.content)).toEqual(["L", "R"]);
  });
});
