import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../src/db/port.js";
import { testStores } from "../support/db-targets.js";
import { Agent } from "../../src/agent/agent.js";
import { BadRequestError, ValidationError } from "../../src/errors.js";
import {
  Condition,
  HumanReview,
  Loop,
  Parallel,
  Router,
  Step,
  StepInput,
  StepOutput,
  Steps,
  Workflow,
  type WorkflowRunOutput,
  type WorkflowStreamEvent,
} from "../../src/sdk.js";
import { collect, scriptedModel } from "../support/agent-kit.js";

/** agno 3.0's HumanReview after a block runs: output review, iteration review, route selection, onError, and reviews inside a Parallel. */
const stores = testStores();

describe.each(stores)("Workflow HumanReview after a block runs, on %s", (_name, open) => {
  let t: { db: Db; close(): Promise<void> };
  let db: Db;
  beforeAll(async () => {
    t = open();
    db = t.db;
    await db.init();
  });
  afterAll(() => t.close());

  /** A draft step under output review, then a step that uses its content (a new definition each call: another process). */
  const draftFlow = (ran: string[], review: ConstructorParameters<typeof HumanReview>[0]) =>
    new Workflow({
      name: "drafts",
      db,
      steps: [
        new Step({
          name: "draft",
          humanReview: new HumanReview(review),
          executor: (i: StepInput) => {
            ran.push("draft");
            const feedback = i.additional_data.rejection_feedback;
            return feedback
              ? `revised (${String(feedback)}) of ${String(i.additional_data.previous_output)}`
              : "draft 1";
          },
        }),
        new Step({
          name: "final",
          executor: (i: StepInput) => (ran.push("final"), `final: ${String(i.previous_step_content)}`),
        }),
      ],
    });

  it("output review: the step runs, the run pauses with its output; approve keeps it without running it again", async () => {
    const ran: string[] = [];
    const events: WorkflowStreamEvent[] = await collect(
      draftFlow(ran, { requiresOutputReview: true, outputReviewMessage: "Good draft?" }).run("x", { stream: true }),
    );
    expect(events.map((e) => e.event).slice(-3)).toEqual(["StepCompleted", "StepOutputReview", "WorkflowPaused"]);
    expect(events.at(-2)).toMatchObject({
      step_name: "draft",
      output_review_message: "Good draft?",
      requires_output_review: true,
    });
    const runId = events[0]!.run_id;
    const paused = (await db.getRun(runId))!.run_data as Record<string, unknown>;
    const [req] = paused.step_requirements as Array<Record<string, unknown>>;
    expect(req).toMatchObject({
      step_name: "draft",
      requires_output_review: true,
      output_review_message: "Good draft?",
      requires_confirmation: true,
      is_post_execution: true,
      confirmed: null,
      retry_count: 0,
      max_retries: 3,
      step_output: { content: "draft 1", step_name: "draft" },
    });
    expect(ran).toEqual(["draft"]);
    const again: string[] = [];
    const out = await draftFlow(again, { requiresOutputReview: true }).continueRun(runId, {
      stepRequirements: [{ step_id: req!.step_id as string, confirmed: true }],
    });
    expect(out.status).toBe("COMPLETED");
    expect(again).toEqual(["final"]);
    expect(out.step_results.map((s) => s.content)).toEqual(["draft 1", "final: draft 1"]);
  });

  it("output review: edit keeps the person's content; reject skips the output (onReject skip); an edit on a non-review is refused", async () => {
    const ran: string[] = [];
    const flow = draftFlow(ran, { requiresOutputReview: true });
    const p1 = await flow.run("x");
    const id1 = p1.step_requirements![0]!.step_id;
    const edited = await flow.continueRun(p1.run_id, {
      stepRequirements: [{ step_id: id1, confirmed: true, edited_output: "my own draft" }],
    });
    expect(edited.step_results.map((s) => s.content)).toEqual(["my own draft", "final: my own draft"]);
    expect(edited.step_requirements![0]).toMatchObject({ confirmed: true, edited_output: "my own draft" });

    const p2 = await flow.run("y");
    const skipped = await flow.continueRun(p2.run_id, {
      stepRequirements: [{ step_id: p2.step_requirements![0]!.step_id, confirmed: false }],
    });
    expect(skipped.step_results.map((s) => s.step_name)).toEqual(["final"]);
    expect(skipped.content).toBe("final: null");

    const confirmFlow = draftFlow([], { requiresConfirmation: true });
    const p3 = await confirmFlow.run("z");
    await expect(
      confirmFlow.continueRun(p3.run_id, {
        stepRequirements: [{ step_id: p3.step_requirements![0]!.step_id, confirmed: true, edited_output: "no" }],
      }),
    ).rejects.toThrow(ValidationError);
  });

  it("output review rejected with onReject retry: the step runs again with the feedback and its previous output, until maxRetries cancels", async () => {
    const ran: string[] = [];
    const flow = draftFlow(ran, { requiresOutputReview: true, onReject: "retry", maxRetries: 2 });
    const p1 = await flow.run("x");
    const r1 = p1.step_requirements!.at(-1)!;
    const p2 = await flow.continueRun(p1.run_id, {
      stepRequirements: [{ step_id: r1.step_id, confirmed: false, rejection_feedback: "shorter" }],
    });
    expect(p2.status).toBe("PAUSED");
    const r2 = p2.step_requirements!.at(-1)!;
    expect(r2).toMatchObject({ retry_count: 1, step_output: { content: "revised (shorter) of draft 1" } });
    expect(p2.step_requirements![0]).toMatchObject({ confirmed: false, rejection_feedback: "shorter" });
    const p3 = await flow.continueRun(p1.run_id, { stepRequirements: [{ step_id: r2.step_id, confirmed: false }] });
    expect(p3.status).toBe("PAUSED");
    expect(p3.step_requirements!.at(-1)!.retry_count).toBe(2);
    const end = await flow.continueRun(p1.run_id, {
      stepRequirements: [{ step_id: p3.step_requirements!.at(-1)!.step_id, confirmed: false }],
    });
    expect(end).toMatchObject({ status: "CANCELLED", content: "Max retries (2) reached for step 'draft'" });
    expect(ran).toEqual(["draft", "draft", "draft"]);
  });

  it("output review as a function of the output pauses only when it says so; an agent step run again is told the feedback", async () => {
    const { model, script } = await scriptedModel([{ text: "too long" }, { text: "short" }]);
    const writer = new Agent({ name: "writer", model });
    const flow = new Workflow({
      name: "agent-review",
      db,
      steps: [
        new Step({
          name: "write",
          executor: writer,
          humanReview: new HumanReview({
            requiresOutputReview: (o: StepOutput) => String(o.content).includes("long"),
            onReject: "retry",
          }),
        }),
      ],
    });
    const paused = await flow.run("a note");
    expect(paused.status).toBe("PAUSED");
    const done = await flow.continueRun(paused.run_id, {
      stepRequirements: [
        { step_id: paused.step_requirements![0]!.step_id, confirmed: false, rejection_feedback: "cut it" },
      ],
    });
    // The second output is "short": the function asks for no review, the run completes.
    expect(done).toMatchObject({ status: "COMPLETED", content: "short" });
    const requests = await script.requests();
    expect((requests[1]!.body.messages as Array<{ content: string }>).at(-1)!.content).toBe(
      "a note\n\nYour previous output:\ntoo long\n\nFeedback from reviewer:\ncut it",
    );
  });

  it("Loop iteration review: pauses after each iteration; reject (retry) runs one more with the feedback, approve ends the loop", async () => {
    const ran: string[] = [];
    const define = () =>
      new Workflow({
        name: "refine",
        db,
        steps: [
          new Loop({
            name: "polish",
            maxIterations: 4,
            humanReview: new HumanReview({
              requiresIterationReview: true,
              iterationReviewMessage: "Good enough?",
              onReject: "retry",
            }),
            steps: [
              new Step({
                name: "pass",
                executor: (i: StepInput) => {
                  ran.push("pass");
                  return `pass ${ran.length}${i.additional_data.rejection_feedback ? ` (${String(i.additional_data.rejection_feedback)})` : ""}`;
                },
              }),
            ],
          }),
          new Step({ name: "after", executor: (i: StepInput) => `after ${String(i.previous_step_content)}` }),
        ],
      });
    const events: WorkflowStreamEvent[] = await collect(define().run("x", { stream: true }));
    expect(events.map((e) => e.event).slice(-3)).toEqual([
      "LoopIterationCompleted",
      "StepOutputReview",
      "WorkflowPaused",
    ]);
    const runId = events[0]!.run_id;
    const first = (await db.getRun(runId))!.run_data as unknown as WorkflowRunOutput;
    expect(first.step_requirements![0]).toMatchObject({
      step_type: "Loop",
      step_name: "polish",
      requires_output_review: true,
      output_review_message: "Good enough?",
      is_post_execution: true,
      step_output: { content: "pass 1" },
    });
    const second = await define().continueRun(runId, {
      stepRequirements: [
        { step_id: first.step_requirements![0]!.step_id, confirmed: false, rejection_feedback: "more" },
      ],
    });
    expect(second.status).toBe("PAUSED");
    expect(second.step_requirements!.at(-1)!.step_output).toMatchObject({ content: "pass 2 (more)" });
    const resumed: WorkflowStreamEvent[] = await collect(
      define().continueRun(runId, {
        stepRequirements: [{ step_id: second.step_requirements!.at(-1)!.step_id, confirmed: true }],
        stream: true,
      }),
    );
    expect(resumed.map((e) => e.event)).toEqual([
      "StepContinued",
      "LoopExecutionCompleted",
      "StepStarted",
      "StepOutput",
      "StepCompleted",
      "WorkflowCompleted",
    ]);
    const done = (await db.getRun(runId))!.run_data as unknown as typeof first;
    expect(ran).toEqual(["pass", "pass"]);
    expect(done.step_results[0]).toMatchObject({ content: "Loop polish completed 2 iterations with 2 total steps" });
    expect(done.content).toBe("after pass 2 (more)");
  });

  it("Loop iteration review rejected with onReject skip drops the loop's output", async () => {
    const flow = new Workflow({
      name: "refine-skip",
      db,
      steps: [
        new Loop({
          name: "polish",
          maxIterations: 3,
          humanReview: new HumanReview({ requiresIterationReview: true }),
          steps: [() => "pass"],
        }),
        (i: StepInput) => `after ${String(i.previous_step_content ?? "nothing")}`,
      ],
    });
    const paused = await flow.run("x");
    const out = await flow.continueRun(paused.run_id, {
      stepRequirements: [{ step_id: paused.step_requirements![0]!.step_id, confirmed: false }],
    });
    expect(out.status).toBe("COMPLETED");
    expect(out.step_results).toHaveLength(1);
    expect(out.content).toBe("after nothing");
  });

  /** A Router whose route a person picks (requiresUserInput), the selector unused. */
  const pickFlow = (ran: string[], review: ConstructorParameters<typeof HumanReview>[0]) =>
    new Workflow({
      name: "pick",
      db,
      steps: [
        new Router({
          name: "route",
          humanReview: new HumanReview({ requiresUserInput: true, ...review }),
          selector: () => "quick",
          choices: [
            new Step({ name: "quick", executor: () => (ran.push("quick"), "quick result") }),
            new Step({ name: "deep", executor: () => (ran.push("deep"), "deep result") }),
            new Step({ name: "custom", executor: () => (ran.push("custom"), "custom result") }),
          ],
        }),
      ],
    });

  it("Router route selection: the run pauses with the choices; the picked route(s) run, in the order given", async () => {
    const ran: string[] = [];
    const events: WorkflowStreamEvent[] = await collect(
      pickFlow(ran, { allowMultipleSelections: true }).run("x", { stream: true }),
    );
    expect(events.at(-2)).toMatchObject({
      event: "RouterPaused",
      step_name: "route",
      available_choices: ["quick", "deep", "custom"],
      allow_multiple_selections: true,
      user_input_message: "Select a route from: quick, deep, custom",
    });
    expect(ran).toEqual([]);
    const runId = events[0]!.run_id;
    const paused = (await db.getRun(runId))!.run_data as unknown as WorkflowRunOutput;
    const req = paused.step_requirements![0]!;
    expect(req).toMatchObject({ requires_route_selection: true, step_type: "Router", selected_choices: null });
    const flow = pickFlow(ran, { allowMultipleSelections: true });
    await expect(
      flow.continueRun(runId, { stepRequirements: [{ step_id: req.step_id, selected_choices: ["nope"] }] }),
    ).rejects.toThrow(/nope is not one of/);
    await expect(
      flow.continueRun(runId, { stepRequirements: [{ step_id: req.step_id, selected_choices: [] }] }),
    ).rejects.toThrow(ValidationError);
    const done = await flow.continueRun(runId, {
      stepRequirements: [{ step_id: req.step_id, selected_choices: ["custom", "quick"] }],
    });
    expect(done.status).toBe("COMPLETED");
    expect(ran).toEqual(["custom", "quick"]);
    expect(done.step_requirements![0]!.selected_choices).toEqual(["custom", "quick"]);
  });

  it("Router route selection takes one choice only unless allowMultipleSelections; output review rejected with retry asks for the route again", async () => {
    const ran: string[] = [];
    const flow = pickFlow(ran, { requiresOutputReview: true, onReject: "retry" });
    const p1 = await flow.run("x");
    const r1 = p1.step_requirements![0]!;
    expect(r1.allow_multiple_selections).toBe(false);
    await expect(
      flow.continueRun(p1.run_id, { stepRequirements: [{ step_id: r1.step_id, selected_choices: ["quick", "deep"] }] }),
    ).rejects.toThrow(/one choice only/);
    const p2 = await flow.continueRun(p1.run_id, {
      stepRequirements: [{ step_id: r1.step_id, selected_choices: ["quick"] }],
    });
    const r2 = p2.step_requirements!.at(-1)!;
    expect(r2).toMatchObject({ step_type: "Router", requires_output_review: true, is_post_execution: true });
    const p3 = await flow.continueRun(p1.run_id, { stepRequirements: [{ step_id: r2.step_id, confirmed: false }] });
    const r3 = p3.step_requirements!.at(-1)!;
    expect(r3).toMatchObject({ requires_route_selection: true, retry_count: 1 });
    const p4 = await flow.continueRun(p1.run_id, {
      stepRequirements: [{ step_id: r3.step_id, selected_choices: ["deep"] }],
    });
    const done = await flow.continueRun(p1.run_id, {
      stepRequirements: [{ step_id: p4.step_requirements!.at(-1)!.step_id, confirmed: true }],
    });
    expect(done).toMatchObject({ status: "COMPLETED", content: "deep result" });
    expect(ran).toEqual(["quick", "deep"]);
  });

  /** A step that fails its first `failures` runs, between two others. */
  const failingFlow = (ran: string[], onError: "fail" | "skip" | "pause", failures: { left: number }) =>
    new Workflow({
      name: `fails-${onError}`,
      db,
      steps: [
        new Step({ name: "fetch", executor: () => (ran.push("fetch"), "fetched") }),
        new Step({
          name: "flaky",
          maxRetries: 0,
          humanReview: new HumanReview({ onError }),
          executor: () => {
            ran.push("flaky");
            if (failures.left-- > 0) throw new BadRequestError("upstream is down");
            return "flaky ok";
          },
        }),
        new Step({
          name: "save",
          executor: (i: StepInput) => (ran.push("save"), `saved ${String(i.previous_step_content)}`),
        }),
      ],
    });

  it("onError skip goes on with a failed output; fail ends the run as ERROR", async () => {
    const ran: string[] = [];
    const skipped = await failingFlow(ran, "skip", { left: 1 }).run("x");
    expect(skipped.status).toBe("COMPLETED");
    expect(skipped.step_results[1]).toMatchObject({
      step_name: "flaky",
      success: false,
      error: "upstream is down",
      content: "Step skipped due to error: upstream is down",
    });
    expect(ran).toEqual(["fetch", "flaky", "save"]);
    const failed = await failingFlow([], "fail", { left: 1 }).run("x");
    expect(failed.status).toBe("ERROR");
  });

  it("onError pause: the run waits with an error requirement; retry runs the step again, skip goes on without it", async () => {
    const ran: string[] = [];
    const failures = { left: 2 };
    const events: WorkflowStreamEvent[] = await collect(failingFlow(ran, "pause", failures).run("x", { stream: true }));
    expect(events.map((e) => e.event).slice(-2)).toEqual(["StepError", "WorkflowPaused"]);
    expect(events.filter((e) => e.event === "StepError")).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ error_requirements: [{ step_name: "flaky", decision: null }] });
    const runId = events[0]!.run_id;
    const paused = (await db.getRun(runId))!;
    expect(paused.status).toBe("PAUSED");
    const data = paused.run_data as unknown as WorkflowRunOutput;
    const err = data.error_requirements![0]!;
    expect(err).toMatchObject({
      step_name: "flaky",
      step_index: 1,
      error_message: "upstream is down",
      retry_count: 0,
      decision: null,
    });
    const flow = failingFlow(ran, "pause", failures);
    await expect(flow.continueRun(runId, { stepRequirements: [] })).rejects.toThrow(/error_requirements/);
    await expect(
      flow.continueRun(runId, {
        stepRequirements: [],
        errorRequirements: [{ step_id: err.step_id, decision: "maybe" as never }],
      }),
    ).rejects.toThrow(ValidationError);
    // Retry: it fails again and pauses again, retry_count 1; then it is skipped.
    const again = await flow.continueRun(runId, {
      stepRequirements: [],
      errorRequirements: [{ step_id: err.step_id, decision: "retry" }],
    });
    expect(again.status).toBe("PAUSED");
    expect(again.error_requirements![0]).toMatchObject({ retry_count: 1, decision: null });
    const done = await flow.continueRun(runId, {
      stepRequirements: [],
      errorRequirements: [{ step_id: again.error_requirements![0]!.step_id, decision: "skip" }],
    });
    expect(done).toMatchObject({ status: "COMPLETED", content: "saved fetched" });
    expect(done.error_requirements ?? null).toBeNull();
    expect(ran).toEqual(["fetch", "flaky", "flaky", "save"]);

    // A retry that works goes on with the step's output.
    const ran2: string[] = [];
    const once = { left: 1 };
    const p = await failingFlow(ran2, "pause", once).run("y");
    const ok = await failingFlow(ran2, "pause", once).continueRun(p.run_id, {
      stepRequirements: [],
      errorRequirements: [{ step_id: p.error_requirements![0]!.step_id, decision: "retry" }],
    });
    expect(ok).toMatchObject({ status: "COMPLETED", content: "saved flaky ok" });
  });

  it("onError on a Condition: unset records the failing inner step; fail ends the run; pause waits and a retry runs the Condition again", async () => {
    const define = (onError: "fail" | "pause" | undefined, failures: { left: number }, ran: string[]) =>
      new Workflow({
        name: `cond-${onError ?? "unset"}`,
        db,
        steps: [
          new Condition({
            name: "gate",
            evaluator: true,
            ...(onError ? { humanReview: new HumanReview({ onError }) } : {}),
            steps: [
              new Step({ name: "prep", executor: () => (ran.push("prep"), "prepped") }),
              new Step({
                name: "risky",
                maxRetries: 0,
                executor: () => {
                  ran.push("risky");
                  if (failures.left-- > 0) throw new BadRequestError("no luck");
                  return "lucky";
                },
              }),
            ],
          }),
        ],
      });
    const recorded = await define(undefined, { left: 1 }, []).run("x");
    expect(recorded.status).toBe("COMPLETED");
    expect(recorded.step_results[0]!.steps!.at(-1)).toMatchObject({ success: false, error: "no luck" });
    expect((await define("fail", { left: 1 }, []).run("x")).status).toBe("ERROR");
    const ran: string[] = [];
    const failures = { left: 1 };
    const paused = await define("pause", failures, ran).run("x");
    expect(paused.error_requirements![0]).toMatchObject({ step_name: "gate", error_message: "no luck" });
    const done = await define("pause", failures, ran).continueRun(paused.run_id, {
      stepRequirements: [],
      errorRequirements: [{ step_id: paused.error_requirements![0]!.step_id, decision: "retry" }],
    });
    expect(done).toMatchObject({ status: "COMPLETED", content: "lucky" });
    expect(ran).toEqual(["prep", "risky", "prep", "risky"]);
  });

  it("a review inside a Parallel pauses the run; the branches that ended are kept, not run again; waiting reviews come one at a time", async () => {
    const ran: string[] = [];
    const define = () =>
      new Workflow({
        name: "fan-out",
        db,
        steps: [
          new Parallel({
            name: "fan",
            steps: [
              new Step({
                name: "a",
                executor: (i: StepInput) => {
                  ran.push("a");
                  i.session_state.a = true;
                  return "a done";
                },
              }),
              new Steps({
                name: "b",
                steps: [
                  new Step({ name: "b1", executor: () => (ran.push("b1"), "b1 done") }),
                  new Step({
                    name: "b2",
                    humanReview: new HumanReview({ requiresConfirmation: true }),
                    executor: () => (ran.push("b2"), "b2 done"),
                  }),
                ],
              }),
              new Step({
                name: "c",
                humanReview: new HumanReview({ requiresOutputReview: true }),
                executor: () => (ran.push("c"), "c done"),
              }),
            ],
          }),
          new Step({ name: "after", executor: () => (ran.push("after"), "after") }),
        ],
      });
    const first = await define().run("x");
    expect(first.status).toBe("PAUSED");
    expect([...ran].sort()).toEqual(["a", "b1", "c"]);
    const r1 = first.step_requirements!.at(-1)!;
    expect(r1).toMatchObject({ step_name: "b2", step_path: [0, 1, 1] });
    const second = await define().continueRun(first.run_id, {
      stepRequirements: [{ step_id: r1.step_id, confirmed: true }],
    });
    // b2 ran; c's output review, held while b2's was asked, is asked now (c does not run again).
    expect(second.status).toBe("PAUSED");
    const r2 = second.step_requirements!.at(-1)!;
    expect(r2).toMatchObject({
      step_name: "c",
      step_path: [0, 2],
      is_post_execution: true,
      step_output: { content: "c done" },
    });
    expect([...ran].sort()).toEqual(["a", "b1", "b2", "c"]);
    const done = await define().continueRun(first.run_id, {
      stepRequirements: [{ step_id: r2.step_id, confirmed: true, edited_output: "c edited" }],
    });
    expect(done.status).toBe("COMPLETED");
    expect([...ran].sort()).toEqual(["a", "after", "b1", "b2", "c"]);
    const fan = done.step_results[0]!;
    expect(fan.steps!.map((s) => s.step_name)).toEqual(["a", "b", "c"]);
    expect([fan.steps![0]!.content, fan.steps![2]!.content]).toEqual(["a done", "c edited"]);
    expect(fan.steps![1]!.steps!.map((s) => s.content)).toEqual(["b1 done", "b2 done"]);
    expect(fan.content).toContain("c edited");
    expect((await db.getSession(done.session_id))!.record.session_data!.session_state).toEqual({ a: true });
  });
});
