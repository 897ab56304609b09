import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import type { QueueDb } from "../../src/db/port.js";
import { executeRunJob } from "../../src/queue/executor.js";
import { runJobInput } from "../../src/queue/run-job-input.js";
import type { JobRecord } from "../../src/queue/types.js";
import { Condition, Loop, Parallel, Step, StepInput, Steps, Workflow, type WorkflowRunOutput } from "../../src/sdk.js";
import { memoryTestDb } from "../support/agent-kit.js";
import { dbTargets, openTestDb } from "../support/db-targets.js";

/**
 * Durable workflow runs: a queued run saves a checkpoint in its row as each step ends, at any
 * depth but inside a Parallel. The process dying is a step that never returns (the row stays
 * RUNNING, as after kill -9); the queue's next attempt (a lapsed lease, claimed again) goes on
 * after the last step that ended, so no finished step runs twice. The kill -9 of a real runtime is
 * test/node/workflow-crash.e2e.test.ts.
 */

type QueueTestDb = { db: QueueDb; close(): Promise<void> };
const stores: Array<[string, () => QueueTestDb]> = [
  ["memory", memoryTestDb],
  ...dbTargets()
    .filter((t) => t.name === "pglite")
    .map((target) => [target.name, () => openTestDb(target) as QueueTestDb] as [string, () => QueueTestDb]),
];

/** A step function that counts its calls, and hangs (the process "dies") on the call `hangOn`. */
function counted(name: string, calls: string[], hang?: { on: number; started: () => void; gate: Promise<void> }) {
  return new Step({
    name,
    maxRetries: 0,
    executor: async (input: StepInput) => {
      calls.push(name);
      input.session_state[name] = ((input.session_state[name] as number | undefined) ?? 0) + 1;
      if (hang && calls.filter((c) => c === name).length === hang.on) {
        hang.started();
        await hang.gate;
      }
      return `${name} after ${String(input.previous_step_content ?? "start")}`;
    },
  });
}

function crashPoint() {
  let started!: () => void;
  let release!: () => void;
  const running = new Promise<void>((r) => (started = r));
  const gate = new Promise<void>((r) => (release = r));
  return { started, gate, running, release };
}

describe.each(stores)("durable workflow runs on %s", (_name, open) => {
  let t: QueueTestDb;
  beforeAll(async () => {
    t = open();
    await t.db.init();
  });
  afterAll(() => t.close());

  /** The run's job, claimed by a worker whose lease has already lapsed (so the next claim is attempt 2). */
  async function claimed(flow: Workflow, message: string): Promise<JobRecord> {
    const input = runJobInput({ component: flow.ref, message, userId: "ann", maxAttempts: 3, maxDepth: 100 });
    const { job } = await t.db.jobs.enqueueRun(input);
    const first = (await t.db.jobs.claimJobs({ workerId: "dies", limit: 100, leaseSeconds: -1 })).find(
      (j) => j.id === job.id,
    );
    expect(first).toMatchObject({ attempt: 1 });
    return first!;
  }

  /** The job claimed again once its first worker's lease lapsed: its next attempt. */
  async function claimedAgain(job: JobRecord): Promise<JobRecord | undefined> {
    const all = await t.db.jobs.claimJobs({ workerId: "lives", limit: 100, leaseSeconds: 60 });
    return all.find((j) => j.id === job.id);
  }

  const leaseOf = (job: JobRecord, workerId: string) => ({ id: job.id, attempt: job.attempt, workerId });

  it("a run that died inside a Loop inside Steps goes on in the iteration it died in: no finished step runs again", async () => {
    const calls: string[] = [];
    const crash = crashPoint();
    const flow = new Workflow({
      name: "Durable nested",
      db: t.db,
      steps: [
        counted("a", calls),
        new Steps({
          name: "group",
          steps: [
            counted("b", calls),
            new Loop({ name: "loop", maxIterations: 3, steps: [counted("c", calls, { on: 2, ...crash })] }),
          ],
        }),
        counted("d", calls),
      ],
    });
    const job = await claimed(flow, "go nested");
    const runId = job.payload.run_id;
    const dying = executeRunJob(job, leaseOf(job, "dies"), [flow], t.db, t.db.jobs);
    await crash.running;

    // What the database holds when the process dies: RUNNING, with where the run stood.
    const row = await t.db.getRun(runId);
    expect(row?.status).toBe("RUNNING");
    const stood = row!.run_data as unknown as WorkflowRunOutput;
    expect(stood.step_results.map((s) => s.step_name)).toEqual(["a"]);
    expect(stood.checkpoint).toMatchObject({
      index: 1,
      frames: [
        { step_type: "Steps", step_name: "group", index: 1, results: [{ step_name: "b" }] },
        { step_type: "Loop", step_name: "loop", index: 0, results: [], state: { iteration: 1 } },
      ],
    });

    // A lease lapses seconds after its worker died; by then the events it had logged are stored
    // (the log's buffer holds a few milliseconds of events: those a kill catches are lost).
    await sleep(200);
    const again = await claimedAgain(job);
    expect(again).toMatchObject({ id: job.id, attempt: 2 });
    const outcome = await executeRunJob(again!, leaseOf(again!, "lives"), [flow], t.db, t.db.jobs);
    expect(outcome).toMatchObject({ status: "COMPLETED" });

    // The step in flight ran again (at least once); a, b, the first iteration's c and d once each.
    expect(calls).toEqual(["a", "b", "c", "c", "c", "c", "d"]);
    const done = (await t.db.getRun(runId))!;
    expect(done.status).toBe("COMPLETED");
    const out = done.run_data as unknown as WorkflowRunOutput;
    expect(out.checkpoint).toBeUndefined();
    expect(out.content).toBe("d after c after b after a after start");
    expect(out.step_results.map((s) => s.step_name)).toEqual(["a", "group", "d"]);
    const group = out.step_results[1]!;
    expect(group.steps!.map((s) => s.step_name)).toEqual(["b", "loop"]);
    expect(group.steps![1]!.steps!.map((s) => s.content)).toEqual(Array(3).fill("c after b after a after start"));
    // The state the finished steps left came back with the checkpoint: b counted once, c three times.
    const session = await t.db.getSession(job.session_id ?? "", { includeRuns: false });
    expect(session?.record.session_data?.session_state).toMatchObject({ a: 1, b: 1, c: 3, d: 1 });

    // One log across both attempts: one start, each container started once, one end.
    const names = (await t.db.getRunEvents(runId, { afterIndex: -1 })).map((e) => (e.event as { event: string }).event);
    expect(names.filter((n) => n === "WorkflowStarted")).toHaveLength(1);
    expect(names.filter((n) => n === "StepsExecutionStarted")).toHaveLength(1);
    expect(names.filter((n) => n === "LoopExecutionStarted")).toHaveLength(1);
    expect(names.filter((n) => n === "LoopIterationCompleted")).toHaveLength(3);
    expect(names.at(-1)).toBe("WorkflowCompleted");

    // The dead attempt, were it to wake, changes nothing: its writes need the row RUNNING.
    crash.release();
    await dying;
    expect((await t.db.getRun(runId))!.run_data).toMatchObject({ status: "COMPLETED", content: out.content });
  });

  it("a Parallel is saved as a whole; a Condition goes on in the branch it chose without evaluating again", async () => {
    const calls: string[] = [];
    const crash = crashPoint();
    let evaluated = 0;
    const flow = new Workflow({
      name: "Durable parallel",
      db: t.db,
      steps: [
        new Parallel({ name: "both", steps: [counted("p1", calls), counted("p2", calls)] }),
        new Condition({
          name: "check",
          evaluator: () => {
            evaluated++;
            return true;
          },
          steps: [counted("yes", calls), counted("hang", calls, { on: 1, ...crash }), counted("after", calls)],
        }),
      ],
    });
    const job = await claimed(flow, "go parallel");
    const dying = executeRunJob(job, leaseOf(job, "dies"), [flow], t.db, t.db.jobs);
    await crash.running;
    const stood = (await t.db.getRun(job.payload.run_id))!.run_data as unknown as WorkflowRunOutput;
    expect(stood.checkpoint).toMatchObject({
      index: 1,
      frames: [{ step_type: "Condition", index: 1, state: { branch: "if", condition_result: true } }],
    });

    const again = await claimedAgain(job);
    expect(await executeRunJob(again!, leaseOf(again!, "lives"), [flow], t.db, t.db.jobs)).toMatchObject({
      status: "COMPLETED",
    });
    expect(calls.filter((c) => c === "p1" || c === "p2").sort()).toEqual(["p1", "p2"]);
    expect(calls.filter((c) => c === "yes")).toHaveLength(1);
    expect(calls.filter((c) => c === "hang")).toHaveLength(2);
    expect(evaluated).toBe(1);
    const out = (await t.db.getRun(job.payload.run_id))!.run_data as unknown as WorkflowRunOutput;
    expect(out.content).toMatch(/^after after hang after yes after p[12] after start/);
    expect(out.step_results[1]!.steps!.map((s) => s.step_name)).toEqual(["yes", "hang", "after"]);
    crash.release();
    await dying;
  });

  it("a run outside the queue saves no checkpoint unless asked: durable is the queue's", async () => {
    const writes: string[] = [];
    const upsertRun = t.db.upsertRun;
    t.db.upsertRun = (run, opts) => {
      writes.push(String(run.status));
      return upsertRun.call(t.db, run, opts);
    };
    onTestFinished(() => {
      t.db.upsertRun = upsertRun;
    });
    const steps = () => [counted("one", []), counted("two", []), counted("three", [])];
    await new Workflow({ name: "Plain", db: t.db, steps: steps() }).run("plain");
    const plain = writes.length;
    writes.length = 0;
    await new Workflow({ name: "Plain", db: t.db, steps: steps() }).run("durable", { durable: true });
    // One checkpoint per step on top of the run's own writes.
    expect(writes.length - plain).toBe(3);
  });
});
