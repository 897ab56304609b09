import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../src/db/port.js";
import { testStores } from "../support/db-targets.js";
import { Agent } from "../../src/agent/agent.js";
import { NotFoundError, StatusConflictError, ValidationError } from "../../src/errors.js";
import {
  Condition,
  HumanReview,
  Loop,
  Router,
  Step,
  StepInput,
  Steps,
  Workflow,
  type WorkflowStreamEvent,
} from "../../src/sdk.js";
import { collect, scriptedModel } from "../support/agent-kit.js";

/** HumanReview (agno 3.0) on top-level steps: a PAUSED run with a step requirement, continued from storage. */
const stores = testStores();

describe.each(stores)("Workflow HumanReview on %s", (_name, open) => {
  let t: { db: Db; close(): Promise<void> };
  let db: Db;
  beforeAll(async () => {
    t = open();
    db = t.db;
    await db.init();
  });
  afterAll(() => t.close());

  /** A workflow as another process defines it: the same steps, new objects. */
  const publishFlow = (ran: string[], review: ConstructorParameters<typeof HumanReview>[0]) =>
    new Workflow({
      name: "publish",
      db,
      steps: [
        new Step({
          name: "draft",
          executor: (i: StepInput) => {
            ran.push("draft");
            i.session_state.drafted = true;
            return `draft of ${String(i.input)}`;
          },
        }),
        new Step({
          name: "publish",
          humanReview: new HumanReview(review),
          executor: (i: StepInput) => {
            ran.push("publish");
            return `published ${String(i.previous_step_content)}`;
          },
        }),
        new Step({ name: "notify", executor: () => (ran.push("notify"), "notified") }),
      ],
    });

  it("pauses before a step that needs confirmation, stored as PAUSED with its requirement; approve goes on", async () => {
    const ran: string[] = [];
    const events: WorkflowStreamEvent[] = await collect(
      publishFlow(ran, { requiresConfirmation: true, confirmationMessage: "Publish it?" }).run("tides", {
        stream: true,
        userId: "ann",
      }),
    );
    expect(events.map((e) => e.event).slice(-2)).toEqual(["StepPaused", "WorkflowPaused"]);
    expect(ran).toEqual(["draft"]);
    const runId = events[0]!.run_id;
    const row = (await db.getRun(runId))!;
    expect(row.status).toBe("PAUSED");
    const paused = row.run_data as Record<string, unknown>;
    expect(paused).toMatchObject({ paused_step_index: 1, paused_step_name: "publish", pause_kind: "step" });
    const [req] = paused.step_requirements as Array<Record<string, unknown>>;
    expect(req).toMatchObject({
      step_name: "publish",
      step_index: 1,
      step_type: "Step",
      requires_confirmation: true,
      confirmation_message: "Publish it?",
      confirmed: null,
      on_reject: "skip",
    });

    // Another process: the same definition, continued by the run's owner.
    const again: string[] = [];
    const flow = publishFlow(again, { requiresConfirmation: true, confirmationMessage: "Publish it?" });
    await expect(
      flow.continueRun(runId, {
        stepRequirements: [{ step_id: req!.step_id as string, confirmed: true }],
        userId: "bob",
      }),
    ).rejects.toThrow(NotFoundError);
    await expect(flow.continueRun(runId, { stepRequirements: [{ step_id: req!.step_id as string }] })).rejects.toThrow(
      ValidationError,
    );
    expect((await db.getRun(runId))!.status).toBe("PAUSED");
    const resumed: WorkflowStreamEvent[] = await collect(
      flow.continueRun(runId, {
        stepRequirements: [{ step_id: req!.step_id as string, confirmed: true }],
        stream: true,
      }),
    );
    expect(resumed.map((e) => e.event)).toEqual([
      "StepContinued",
      "StepStarted",
      "StepOutput",
      "StepCompleted",
      "StepStarted",
      "StepOutput",
      "StepCompleted",
      "WorkflowCompleted",
    ]);
    expect(again).toEqual(["publish", "notify"]);
    const done = (await db.getRun(runId))!;
    expect(done.status).toBe("COMPLETED");
    const data = done.run_data as Record<string, unknown>;
    expect((data.step_results as Array<{ content: string }>).map((s) => s.content)).toEqual([
      "draft of tides",
      "published draft of tides",
      "notified",
    ]);
    expect((data.step_requirements as Array<{ confirmed: boolean }>)[0]!.confirmed).toBe(true);
    expect((await db.getSession(done.session_id))!.record.session_data!.session_state).toEqual({ drafted: true });
    // Only a PAUSED run continues.
    await expect(
      flow.continueRun(runId, { stepRequirements: [{ step_id: req!.step_id as string, confirmed: true }] }),
    ).rejects.toThrow(StatusConflictError);
  });

  it("a rejection skips the step (onReject skip) or cancels the run (onReject cancel)", async () => {
    const skipRan: string[] = [];
    const skipFlow = publishFlow(skipRan, { requiresConfirmation: true });
    const p1 = await skipFlow.run("a");
    const id1 = p1.step_requirements![0]!.step_id;
    const skipped = await skipFlow.continueRun(p1.run_id, { stepRequirements: [{ step_id: id1, confirmed: false }] });
    expect(skipped.status).toBe("COMPLETED");
    expect(skipRan).toEqual(["draft", "notify"]);
    expect(skipped.step_results.map((s) => s.step_name)).toEqual(["draft", "notify"]);

    const cancelRan: string[] = [];
    const cancelFlow = publishFlow(cancelRan, { requiresConfirmation: true, onReject: "cancel" });
    const p2 = await cancelFlow.run("b");
    const cancelled = await cancelFlow.continueRun(p2.run_id, {
      stepRequirements: [{ step_id: p2.step_requirements![0]!.step_id, confirmed: false }],
    });
    expect(cancelled).toMatchObject({
      status: "CANCELLED",
      content: "Workflow cancelled: Step 'publish' was rejected",
    });
    expect(cancelRan).toEqual(["draft"]);
    expect((await db.getRun(p2.run_id))!.status).toBe("CANCELLED");
  });

  it("a rejected Condition runs its else branch (its default onReject)", async () => {
    const flow = new Workflow({
      name: "gated",
      db,
      steps: [
        new Condition({
          name: "gate",
          evaluator: true,
          humanReview: new HumanReview({ requiresConfirmation: true }),
          steps: [() => "approved path"],
          elseSteps: [() => "fallback path"],
        }),
      ],
    });
    const paused = await flow.run("x");
    expect(paused.status).toBe("PAUSED");
    expect(paused.step_requirements![0]).toMatchObject({ step_type: "Condition", on_reject: "else" });
    const out = await flow.continueRun(paused.run_id, {
      stepRequirements: [{ step_id: paused.step_requirements![0]!.step_id, confirmed: false }],
    });
    expect(out.content).toBe("fallback path");
  });

  it("asks for input with a schema: bad input is refused, good input reaches the step (and an agent step's message)", async () => {
    const { model, script } = await scriptedModel([{ text: "A formal note." }]);
    const writer = new Agent({ name: "writer", model });
    const seen: unknown[] = [];
    const flow = new Workflow({
      name: "styled",
      db,
      steps: [
        new Step({
          name: "style",
          humanReview: new HumanReview({
            requiresUserInput: true,
            userInputMessage: "Pick a tone",
            userInputSchema: [
              { name: "tone", field_type: "str", allowed_values: ["formal", "casual"] },
              { name: "words", field_type: "int", required: false },
            ],
          }),
          executor: writer,
        }),
        (i: StepInput) => (seen.push(i.additional_data.user_input), "checked"),
      ],
    });
    const paused = await flow.run("write a note");
    const req = paused.step_requirements![0]!;
    expect(req).toMatchObject({
      requires_user_input: true,
      user_input_message: "Pick a tone",
      requires_confirmation: false,
    });
    const stepId = req.step_id;
    await expect(
      flow.continueRun(paused.run_id, { stepRequirements: [{ step_id: stepId, user_input: { tone: "angry" } }] }),
    ).rejects.toThrow(/user_input.tone must be one of/);
    await expect(
      flow.continueRun(paused.run_id, {
        stepRequirements: [{ step_id: stepId, user_input: { tone: "formal", words: "ten" } }],
      }),
    ).rejects.toThrow(/user_input.words must be of type int/);
    const out = await flow.continueRun(paused.run_id, {
      stepRequirements: [{ step_id: stepId, user_input: { tone: "formal" } }],
    });
    expect(out.status).toBe("COMPLETED");
    expect(out.step_results[0]!.content).toBe("A formal note.");
    const [request] = await script.requests();
    expect((request!.body.messages as Array<{ content: string }>).at(-1)!.content).toBe(
      "write a note\n\nUser preferences:\n- tone: formal",
    );
    // The input is the paused step's only: the step after it does not get it.
    expect(seen).toEqual([undefined]);
  });

  it("pauses inside a Loop inside a Router and continues there, by the step's full path (agno cannot)", async () => {
    const ran: string[] = [];
    const define = () =>
      new Workflow({
        name: "nested-review",
        db,
        steps: [
          new Router({
            name: "route",
            selector: () => "polish",
            choices: [
              new Loop({
                name: "polish",
                maxIterations: 2,
                steps: [
                  new Step({
                    name: "write",
                    executor: (i: StepInput) => (ran.push("write"), `draft ${String(i.input)}`),
                  }),
                  new Step({
                    name: "review",
                    humanReview: new HumanReview({ requiresConfirmation: true }),
                    executor: () => (ran.push("review"), "reviewed"),
                  }),
                ],
              }),
              new Step({ name: "other", executor: () => (ran.push("other"), "other") }),
            ],
          }),
          new Step({ name: "finish", executor: () => (ran.push("finish"), "finished") }),
        ],
      });
    const first = await define().run("x");
    expect(first.status).toBe("PAUSED");
    expect(ran).toEqual(["write"]);
    const req1 = first.step_requirements!.at(-1)!;
    expect(req1).toMatchObject({ step_name: "review", step_index: 1, step_path: [0, 0, 1], step_type: "Step" });
    expect(first).toMatchObject({ paused_step_index: 0, paused_step_name: "route" });

    // Continued by another definition of the same workflow (another process): it goes back down the path.
    const events: WorkflowStreamEvent[] = await collect(
      define().continueRun(first.run_id, {
        stepRequirements: [{ step_id: req1.step_id, confirmed: true }],
        stream: true,
      }),
    );
    expect(events[0]).toMatchObject({ event: "StepContinued", step_name: "review", step_index: [0, 0, 1] });
    expect(events.at(-1)!.event).toBe("WorkflowPaused");
    // Iteration 1's review ran; iteration 2 wrote and paused again before its review.
    expect(ran).toEqual(["write", "review", "write"]);
    const second = (await db.getRun(first.run_id))!.run_data as unknown as typeof first;
    expect(second.step_requirements!.map((r) => r.confirmed)).toEqual([true, null]);

    const done = await define().continueRun(first.run_id, {
      stepRequirements: [{ step_id: second.step_requirements!.at(-1)!.step_id, confirmed: false }],
    });
    expect(done.status).toBe("COMPLETED");
    expect(ran).toEqual(["write", "review", "write", "finish"]);
    const loop = done.step_results[0]!.steps![0]!;
    expect(loop.content).toBe("Loop polish completed 2 iterations with 3 total steps");
    expect(loop.steps!.map((s) => s.step_name)).toEqual(["write", "review", "write"]);
    expect(done.content).toBe("finished");
  });

  it("refuses what it does not do: agno fields not supported yet, a field on a block agno does not allow it on", () => {
    expect(() => new Steps({ steps: [], humanReview: new HumanReview({ requiresOutputReview: true }) })).toThrow(
      /requiresOutputReview is not supported on Steps/,
    );
    expect(() => new Loop({ steps: [], humanReview: new HumanReview({ requiresUserInput: true }) })).toThrow(
      ValidationError,
    );
    expect(
      () => new Step({ executor: () => 1, humanReview: new HumanReview({ requiresIterationReview: true }) }),
    ).toThrow(/requiresIterationReview is not supported on Step/);
    expect(() => new HumanReview({ requiresOutputReview: true, requiresIterationReview: true })).toThrow(
      ValidationError,
    );
    expect(() => new HumanReview({ onError: "explode" as never })).toThrow(ValidationError);
    expect(() => new HumanReview({ maxRetries: -1 })).toThrow(ValidationError);
    expect(() => new HumanReview({ timeout: 0 })).toThrow(ValidationError);
    expect(() => new Steps({ steps: [], humanReview: new HumanReview({ requiresUserInput: true }) })).toThrow(
      ValidationError,
    );
    expect(() => new Step({ executor: () => 1, humanReview: new HumanReview({ onReject: "else" }) })).toThrow(
      ValidationError,
    );
  });
});
