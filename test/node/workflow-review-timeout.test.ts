import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../src/db/port.js";
import { StatusConflictError, ValidationError } from "../../src/errors.js";
import { HumanReview, Step, StepInput, Workflow, type HumanReviewOptions } from "../../src/sdk.js";
import { resolveTimedOutReviews } from "../../src/workflow/resolve-timed-out-reviews.js";
import { recordRunEvents } from "../../src/agent/event-log.js";
import { collect } from "../support/agent-kit.js";
import { testStores } from "../support/db-targets.js";

/**
 * HumanReview.timeout / onTimeout (agno 3.0): the requirement carries `timeout_at` and
 * `on_timeout`; a continue after the deadline gets `on_timeout` as agno applies it; and, beyond
 * agno, the cron tick's resolver fires it with no request at all.
 */
const stores = testStores({ everyPostgres: true });

const HOUR = 3600_000;

describe.each(stores)("HumanReview timeout on %s", (_name, open) => {
  let t: { db: Db; close(): Promise<void> };
  let db: Db;
  beforeAll(async () => {
    t = open();
    db = t.db;
    await db.init();
  });
  afterAll(() => t.close());

  /** draft, then a reviewed publish, then notify; `ran` says which steps ran. */
  const flow = (ran: string[], review: HumanReviewOptions, id = "timed-publish") =>
    new Workflow({
      id,
      name: id,
      db,
      steps: [
        new Step({ name: "draft", executor: (i: StepInput) => (ran.push("draft"), `draft of ${String(i.input)}`) }),
        new Step({
          name: "publish",
          humanReview: new HumanReview(review),
          executor: (i: StepInput) => (ran.push("publish"), `published ${String(i.previous_step_content)}`),
        }),
        new Step({ name: "notify", executor: () => (ran.push("notify"), "notified") }),
      ],
    });

  it("the requirement carries timeout_at (ISO, the deadline) and on_timeout (default cancel); no timeout, no deadline", async () => {
    const before = Date.now();
    const paused = await flow([], { requiresConfirmation: true, timeout: 600 }).run("a");
    const req = paused.step_requirements![0]!;
    expect(req.on_timeout).toBe("cancel");
    expect(req.timeout_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const at = Date.parse(req.timeout_at!);
    expect(at).toBeGreaterThanOrEqual(before + 600_000);
    expect(at).toBeLessThanOrEqual(Date.now() + 600_000);
    const stored = (await db.getRun(paused.run_id))!.run_data as unknown as {
      step_requirements: Array<Record<string, unknown>>;
    };
    expect(stored.step_requirements[0]).toMatchObject({ timeout_at: req.timeout_at, on_timeout: "cancel" });
    const untimed = await flow([], { requiresConfirmation: true }).run("b");
    expect(untimed.step_requirements![0]).toMatchObject({ timeout_at: null, on_timeout: "cancel" });
    // Before the deadline a continue is a person's decision as ever.
    const ran: string[] = [];
    const done = await flow(ran, { requiresConfirmation: true, timeout: 600, onTimeout: "skip" }).continueRun(
      paused.run_id,
      { stepRequirements: [{ step_id: req.step_id, confirmed: true }] },
    );
    expect(done.status).toBe("COMPLETED");
    expect(ran).toEqual(["publish", "notify"]);
  });

  it("a continue after the deadline gets on_timeout, whatever it says: cancel, skip, approve", async () => {
    const late = async (onTimeout: "cancel" | "skip" | "approve", confirmed: boolean) => {
      const ran: string[] = [];
      const review: HumanReviewOptions = { requiresConfirmation: true, timeout: 0.05, onTimeout };
      const paused = await flow(ran, review).run(onTimeout);
      await new Promise((r) => setTimeout(r, 80));
      const out = await flow(ran, review).continueRun(paused.run_id, {
        stepRequirements: [{ step_id: paused.step_requirements![0]!.step_id, confirmed }],
      });
      return { out, ran };
    };
    const cancel = await late("cancel", true);
    expect(cancel.out).toMatchObject({ status: "CANCELLED", content: "Workflow cancelled: Step 'publish' timed out" });
    expect(cancel.ran).toEqual(["draft"]);
    expect((await db.getRun(cancel.out.run_id))!.status).toBe("CANCELLED");
    const skip = await late("skip", true);
    expect(skip.out.status).toBe("COMPLETED");
    expect(skip.ran).toEqual(["draft", "notify"]);
    const approve = await late("approve", false);
    expect(approve.out.status).toBe("COMPLETED");
    expect(approve.ran).toEqual(["draft", "publish", "notify"]);
    expect(approve.out.step_requirements![0]).toMatchObject({ confirmed: true, timed_out: true });
    // A late continue needs no decision at all: the deadline decided.
    const ran: string[] = [];
    const review: HumanReviewOptions = { requiresConfirmation: true, timeout: 0.05, onTimeout: "skip" };
    const paused = await flow(ran, review).run("none");
    await new Promise((r) => setTimeout(r, 80));
    expect((await flow(ran, review).continueRun(paused.run_id, { stepRequirements: [] })).status).toBe("COMPLETED");
    expect(ran).toEqual(["draft", "notify"]);
  });

  it("the tick's resolver fires it with no request: cancel, skip and approve, each run once; runs not due, untimed or of other workflows stay PAUSED", async () => {
    const ran: Record<string, string[]> = { cancel: [], skip: [], approve: [] };
    const reviews = {
      cancel: { requiresConfirmation: true, timeout: 60 },
      skip: { requiresConfirmation: true, timeout: 60, onTimeout: "skip" },
      approve: { requiresConfirmation: true, timeout: 60, onTimeout: "approve" },
    } satisfies Record<string, HumanReviewOptions>;
    const flows = Object.fromEntries(
      Object.entries(reviews).map(([k, r]) => [k, flow(ran[k]!, r, `tick-${k}`)]),
    ) as Record<keyof typeof reviews, Workflow>;
    const ids: Record<string, string> = {};
    for (const k of Object.keys(reviews) as Array<keyof typeof reviews>) ids[k] = (await flows[k].run(k)).run_id;
    const untimed = (await flow([], { requiresConfirmation: true }, "tick-untimed").run("u")).run_id;
    const stranger = (await flow([], { requiresConfirmation: true, timeout: 1 }, "tick-stranger").run("s")).run_id;
    const served = Object.values(flows);

    // Not yet due: nothing happens.
    expect(await resolveTimedOutReviews(db, served, Date.now() + 30_000)).toEqual([]);
    for (const id of Object.values(ids)) expect((await db.getRun(id))!.status).toBe("PAUSED");

    // An hour later, with nobody asking.
    const resolved = await resolveTimedOutReviews(db, served, Date.now() + HOUR);
    expect(resolved.sort()).toEqual(Object.values(ids).sort());
    expect((await db.getRun(ids.cancel!))!.run_data).toMatchObject({
      status: "CANCELLED",
      content: "Workflow cancelled: Step 'publish' timed out",
    });
    expect(ran.cancel).toEqual(["draft"]);
    expect((await db.getRun(ids.skip!))!.status).toBe("COMPLETED");
    expect(ran.skip).toEqual(["draft", "notify"]);
    const approved = (await db.getRun(ids.approve!))!;
    expect(approved.status).toBe("COMPLETED");
    expect(ran.approve).toEqual(["draft", "publish", "notify"]);
    expect((approved.run_data as unknown as { content: string }).content).toBe("notified");
    // A workflow this deployment does not serve is left for one that does; an untimed review waits.
    expect((await db.getRun(stranger))!.status).toBe("PAUSED");
    expect((await db.getRun(untimed))!.status).toBe("PAUSED");
    // The next tick finds nothing more of these to do.
    expect(await resolveTimedOutReviews(db, served, Date.now() + HOUR)).toEqual([]);
    expect(ran.approve).toEqual(["draft", "publish", "notify"]);
  });

  it("a followed run's log goes on when the tick resolves it: /resume sees the rest of the run, numbered on", async () => {
    const ran: string[] = [];
    const id = "timed-logged";
    const wf = flow(ran, { requiresConfirmation: true, timeout: 0.05, onTimeout: "approve" }, id);
    const logged = await collect(recordRunEvents(db, wf.run("logged", { stream: true })));
    const runId = logged[0]!.event.run_id!;
    expect(logged.at(-1)!.event.event).toBe("WorkflowPaused");
    await new Promise((r) => setTimeout(r, 80));
    expect(await resolveTimedOutReviews(db, [wf], Date.now())).toEqual([runId]);
    const log = await db.getRunEvents(runId, { afterIndex: -1 });
    expect(log.map((e) => e.index)).toEqual(log.map((_, i) => i));
    const after = log.slice(logged.length).map((e) => (e.event as { event: string }).event);
    expect(after[0]).toBe("StepContinued");
    expect(after.at(-1)).toBe("WorkflowCompleted");
    expect(ran).toEqual(["draft", "publish", "notify"]);
  });

  it("a person's continue racing the tick: exactly one resolver goes on, the step runs once", async () => {
    for (let i = 0; i < 3; i++) {
      const ran: string[] = [];
      const review: HumanReviewOptions = { requiresConfirmation: true, timeout: 0.05, onTimeout: "approve" };
      const id = `race-${i}`;
      const paused = await flow(ran, review, id).run("r");
      await new Promise((r) => setTimeout(r, 80));
      const person = flow(ran, review, id).continueRun(paused.run_id, {
        stepRequirements: [{ step_id: paused.step_requirements![0]!.step_id, confirmed: true }],
      });
      const tick = resolveTimedOutReviews(db, [flow(ran, review, id)], Date.now());
      const [p, k] = await Promise.allSettled([person, tick]);
      const personWon = p.status === "fulfilled";
      const tickWon = k.status === "fulfilled" && k.value.length === 1;
      expect(personWon !== tickWon, `person ${p.status}, tick ${JSON.stringify(k)}`).toBe(true);
      if (!personWon) expect((p as PromiseRejectedResult).reason).toBeInstanceOf(StatusConflictError);
      expect(ran).toEqual(["draft", "publish", "notify"]);
      expect((await db.getRun(paused.run_id))!.status).toBe("COMPLETED");
    }
  });
});

it("refuses a bad timeout or onTimeout, and approve where required input would be missing", () => {
  for (const timeout of [0, -5, Number.NaN, "60" as unknown as number])
    expect(() => new HumanReview({ requiresConfirmation: true, timeout })).toThrow(ValidationError);
  expect(() => new HumanReview({ requiresConfirmation: true, onTimeout: "retry" as "skip" })).toThrow(/onTimeout/);
  const schema = [{ name: "tone", field_type: "str" as const }];
  expect(
    () => new HumanReview({ requiresUserInput: true, userInputSchema: schema, timeout: 5, onTimeout: "approve" }),
  ).toThrow(/required user input/);
  const optional = new HumanReview({
    requiresUserInput: true,
    userInputSchema: [{ ...schema[0]!, required: false }],
    timeout: 5,
    onTimeout: "approve",
  });
  expect(optional).toMatchObject({ timeout: 5, onTimeout: "approve" });
  expect(new HumanReview({ requiresConfirmation: true })).toMatchObject({ timeout: null, onTimeout: "cancel" });
});
