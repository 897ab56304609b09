import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { identityOf, type Component, type ComponentRef, type ComponentRunInput } from "../../src/agent/component.js";
import type { RunEvent } from "../../src/agent/events.js";
import { emptyMetrics } from "../../src/agent/metrics.js";
import type { RunOutput } from "../../src/agent/run-output.js";
import type { Db, QueueDb } from "../../src/db/port.js";
import type { RunRecord } from "../../src/db/types.js";
import { executeRunJob } from "../../src/queue/executor.js";
import { NotFoundError } from "../../src/errors.js";
import { jobComponent, runJobInput } from "../../src/queue/run-job-input.js";
import type { EnqueueRunInput, JobRecord, JobStore } from "../../src/queue/types.js";
import { runTarget } from "../../src/scheduler/validate.js";
import { nowSeconds } from "../../src/time.js";
import { tool } from "../../src/tools/tool.js";
import { memoryTestDb, scriptedModel } from "../support/agent-kit.js";
import { dbTargets, openTestDb, type DbTarget } from "../support/db-targets.js";

/**
 * A component that is not an Agent: a tiny "team" that answers at once, with agno's team event
 * names (TeamRunStarted … TeamRunCompleted). The executor must run it from its ref and learn how
 * it ended from the output it returns, not from an event named RunCompleted.
 */
class FakeTeam implements Component {
  readonly ref: ComponentRef = { type: "team", id: "crew", name: "Crew" };
  readonly heartbeatSeconds = 10;
  constructor(
    readonly db: Db | undefined,
    readonly seen: ComponentRunInput[] = [],
    readonly ending: "COMPLETED" | "ERROR" = "COMPLETED",
  ) {}

  withDb(db: Db): FakeTeam {
    return new FakeTeam(db, this.seen, this.ending);
  }

  async *execute(input: ComponentRunInput): AsyncGenerator<RunEvent, RunOutput> {
    this.seen.push(input);
    const ids = { run_id: input.runId!, session_id: input.sessionId!, ...identityOf(this.ref) };
    const output: RunOutput = {
      ...ids,
      user_id: input.userId ?? null,
      status: "RUNNING",
      content_type: "str",
      input: { input_content: input.message },
      messages: [],
      tools: [],
      requirements: [],
      metrics: emptyMetrics(),
      created_at: nowSeconds(),
    };
    const record = () => output as unknown as RunRecord;
    await this.db!.upsertRun(record(), { expectStatus: ["PENDING"] });
    yield { event: "TeamRunStarted", ...ids, created_at: nowSeconds() } as unknown as RunEvent;
    if (this.ending === "ERROR") {
      output.status = "ERROR";
      output.content = "the team could not agree";
      await this.db!.upsertRun(record(), { expectStatus: ["RUNNING"] });
      yield { event: "TeamRunError", ...ids, content: output.content, created_at: nowSeconds() } as unknown as RunEvent;
      return output;
    }
    output.status = "COMPLETED";
    output.content = `the crew says: ${input.message}`;
    if (!(await input.onFinalWrite?.(record(), ["RUNNING"])))
      await this.db!.upsertRun(record(), { expectStatus: ["RUNNING"] });
    yield {
      event: "TeamRunCompleted",
      ...ids,
      content: output.content,
      created_at: nowSeconds(),
    } as unknown as RunEvent;
    return output;
  }
}

/** A job as the queue hands it to the executor: enqueued (its session and PENDING run with it) and claimed. */
async function enqueued(db: QueueDb, input: EnqueueRunInput): Promise<JobRecord> {
  const { job } = await db.jobs.enqueueRun(input);
  const claimed = await db.jobs.claimJobs({ workerId: "W", limit: 1000, leaseSeconds: 60 });
  return claimed.find((j) => j.id === job.id)!;
}

/** The database's job store, recording each `completeWithRun` (the run's last write that ends its job). */
function endingJobs(db: QueueDb) {
  const ended: Array<{ status: unknown; expect: string[]; jobEnded: boolean }> = [];
  const jobs: Pick<JobStore, "completeWithRun"> = {
    completeWithRun: async (lease, run, expect) => {
      const written = await db.jobs.completeWithRun(lease, run, expect);
      ended.push({ status: run.status, expect, jobEnded: written?.jobEnded ?? false });
      return written;
    },
  };
  return { jobs, ended };
}

const leaseOf = (job: JobRecord) => ({ id: job.id, attempt: job.attempt, workerId: "W" });

describe("the executor runs components by their ref", () => {
  it("runs a team's job: the ref rides in the job, the run row and the events; the job ends with its last write", async () => {
    const { db } = memoryTestDb();
    const team = new FakeTeam(undefined);
    const input = runJobInput({
      component: team.ref,
      message: "plan the launch",
      userId: "ann",
      maxAttempts: 3,
      maxDepth: 100,
    });
    expect(input.component_type).toBe("team");
    expect(input.payload.component).toEqual({ type: "team", id: "crew", name: "Crew" });
    const job = await enqueued(db, input);
    const { jobs, ended } = endingJobs(db);

    const outcome = await executeRunJob(job, leaseOf(job), [team], db, jobs);

    // The last event is TeamRunCompleted, not RunCompleted: the returned output says COMPLETED.
    expect(outcome).toEqual({ status: "COMPLETED", recorded: true });
    expect(ended).toEqual([{ status: "COMPLETED", expect: ["RUNNING"], jobEnded: true }]);
    expect(await db.jobs.getJob(job.id)).toMatchObject({ status: "COMPLETED", locked_by: null, error: null });
    expect(team.seen).toHaveLength(1);
    expect(team.seen[0]).toMatchObject({ message: "plan the launch", runId: input.payload.run_id, stream: true });
    const row = await db.getRun(input.payload.run_id);
    expect(row).toMatchObject({ run_type: "team", team_id: "crew", agent_id: null, status: "COMPLETED" });
    expect(row!.run_data).toMatchObject({
      team_id: "crew",
      team_name: "Crew",
      content: "the crew says: plan the launch",
    });
    const events = await db.getRunEvents(input.payload.run_id, { afterIndex: -1 });
    expect(events.map((e) => (e.event as { event: string }).event)).toEqual(["TeamRunStarted", "TeamRunCompleted"]);
    for (const e of events) {
      expect(e.event).toMatchObject({ team_id: "crew", team_name: "Crew" });
      expect(e.event).not.toHaveProperty("agent_id");
    }
  });

  it("fails a team's job whose output is an ERROR, with its content as the error, and runs a stream=false job without events", async () => {
    const { db } = memoryTestDb();
    const team = new FakeTeam(undefined, [], "ERROR");
    const input = runJobInput({
      component: team.ref,
      message: "m",
      userId: null,
      stream: false,
      maxAttempts: 3,
      maxDepth: 100,
    });
    const job = await enqueued(db, input);
    const { jobs, ended } = endingJobs(db);
    const outcome = await executeRunJob(job, leaseOf(job), [team], db, jobs);
    expect(outcome).toEqual({ status: "FAILED", error: "the team could not agree", retryable: true });
    expect(ended).toEqual([]);
    expect(team.seen[0]!.stream).toBe(false);
    expect(await db.lastRunEventIndex(input.payload.run_id)).toBe(-1);
  });

  it("refuses a job whose component this deployment does not serve, by type as well as id", async () => {
    const { db } = memoryTestDb();
    const team = new FakeTeam(undefined);
    const input = runJobInput({
      component: { type: "agent", id: "crew" },
      message: "m",
      userId: null,
      maxAttempts: 1,
      maxDepth: 10,
    });
    const job = await enqueued(db, input);
    const outcome = await executeRunJob(job, leaseOf(job), [team], db, endingJobs(db).jobs);
    expect(outcome).toEqual({ status: "FAILED", error: "agent crew is not served by this deployment" });
  });

  it("ends an agent's paused run's job through the final-write hook; the agent's wire keeps agent_id and agent_name", async () => {
    const { db } = memoryTestDb();
    const { model } = await scriptedModel([{ toolCalls: [{ name: "delete_file", arguments: { path: "/tmp/x" } }] }]);
    const deleteFile = tool({
      name: "delete_file",
      parameters: z.object({ path: z.string() }),
      requiresConfirmation: true,
      execute: ({ path }) => `deleted ${path}`,
    });
    const agent = new Agent({ id: "ops", name: "Ops", model, tools: [deleteFile] });
    const input = runJobInput({
      component: agent.ref,
      message: "clean up",
      userId: null,
      maxAttempts: 3,
      maxDepth: 100,
    });
    expect(input.payload.component).toEqual({ type: "agent", id: "ops", name: "Ops" });
    const job = await enqueued(db, input);
    const { jobs, ended } = endingJobs(db);

    const outcome = await executeRunJob(job, leaseOf(job), [agent], db, jobs);

    expect(outcome).toEqual({ status: "COMPLETED", recorded: true });
    expect(ended).toEqual([{ status: "PAUSED", expect: ["RUNNING"], jobEnded: true }]);
    expect((await db.jobs.getJob(job.id))!.status).toBe("COMPLETED");
    const row = await db.getRun(input.payload.run_id);
    expect(row).toMatchObject({ run_type: "agent", agent_id: "ops", team_id: null, status: "PAUSED" });
    const events = await db.getRunEvents(input.payload.run_id, { afterIndex: -1 });
    expect(events.at(-1)!.event).toMatchObject({ event: "RunPaused", agent_id: "ops", agent_name: "Ops" });
    for (const e of events) expect(e.event).not.toHaveProperty("team_id");
  });

  it("reads a job stored before refs (component columns only) as the agent it names", () => {
    const payload = { run_id: "r", message: "m" };
    expect(jobComponent({ component_type: "agent", component_id: "assistant", payload })).toEqual({
      type: "agent",
      id: "assistant",
    });
    expect(
      jobComponent({ component_type: undefined as unknown as "agent", component_id: "assistant", payload }),
    ).toEqual({ type: "agent", id: "assistant" });
  });

  it("parses schedule targets into refs: /agents, /teams and /workflows", () => {
    expect(runTarget("/agents/assistant/runs")).toEqual({ type: "agent", id: "assistant" });
    expect(runTarget("/teams/crew/runs")).toEqual({ type: "team", id: "crew" });
    expect(runTarget("/workflows/nightly%20report/runs/")).toEqual({ type: "workflow", id: "nightly report" });
    expect(() => runTarget("/teams/crew/members")).toThrow(/not a run endpoint/);
  });
});

describe("cancellation and HITL go by the component's ref", () => {
  it("an agent cancels or continues only its own runs: another agent's, or a team's of the same id, is not found", async () => {
    const { db } = memoryTestDb();
    const { model } = await scriptedModel([{ toolCalls: [{ name: "delete_file", arguments: { path: "/tmp/y" } }] }]);
    const deleteFile = tool({
      name: "delete_file",
      parameters: z.object({ path: z.string() }),
      requiresConfirmation: true,
      execute: ({ path }) => `deleted ${path}`,
    });
    const ops = new Agent({ id: "ops", model, tools: [deleteFile], db });
    const paused = await ops.run("clean up");
    expect(paused.status).toBe("PAUSED");
    const other = new Agent({ id: "other", model, db });
    await expect(other.cancelRun(paused.run_id)).rejects.toThrow(NotFoundError);
    expect((await db.getRun(paused.run_id))!.status).toBe("PAUSED");

    const team = new FakeTeam(db);
    const input = runJobInput({ component: team.ref, message: "m", userId: null, maxAttempts: 1, maxDepth: 10 });
    await db.jobs.enqueueRun(input);
    const crewAgent = new Agent({ id: "crew", model, db });
    await expect(crewAgent.cancelRun(input.payload.run_id)).rejects.toThrow(NotFoundError);
    await expect(crewAgent.continueRun(input.payload.run_id, { requirements: [] })).rejects.toThrow(NotFoundError);
    expect((await db.getRun(input.payload.run_id))!.status).toBe("PENDING");

    expect(await ops.cancelRun(paused.run_id)).toBe(true);
    expect((await db.getRun(paused.run_id))!.status).toBe("CANCELLED");
  });
});

/** A MemoryDb, or a PostgresDb in a schema of its own: the same queue on either. */
function openQueueDb(target: DbTarget | "memory"): { db: QueueDb; close(): Promise<void> } {
  if (target === "memory") return memoryTestDb();
  const t = openTestDb(target);
  return { db: t.db, close: () => t.close() };
}

describe.each(["memory" as const, ...dbTargets()])("a background agent run end to end on %o", (target) => {
  it("is enqueued, claimed and executed; the run's last write ends its job, so nothing is left to record", async () => {
    const { db, close } = openQueueDb(target);
    try {
      await db.init();
      const { model } = await scriptedModel([{ text: "done in one" }]);
      const agent = new Agent({ name: "assistant", model, db });
      const input = runJobInput({
        component: agent.ref,
        message: "hi",
        userId: "u1",
        stream: false,
        maxAttempts: 2,
        maxDepth: 100,
      });
      const job = await enqueued(db, input);
      expect(job).toMatchObject({ status: "RUNNING", attempt: 1, locked_by: "W" });
      expect(await db.getRun(input.payload.run_id)).toMatchObject({ status: "PENDING", agent_id: agent.ref.id });
      const { jobs, ended } = endingJobs(db);

      const outcome = await executeRunJob(job, leaseOf(job), [agent], db, jobs);

      expect(outcome).toEqual({ status: "COMPLETED", recorded: true });
      expect(ended).toEqual([{ status: "COMPLETED", expect: ["RUNNING"], jobEnded: true }]);
      expect(await db.getRun(input.payload.run_id)).toMatchObject({
        status: "COMPLETED",
        run_type: "agent",
        user_id: "u1",
        run_data: { content: "done in one" },
      });
      expect(await db.jobs.getJob(job.id)).toMatchObject({ status: "COMPLETED", locked_by: null, error: null });
      expect(await db.jobs.queueStats()).toMatchObject({ pending: 0, running: 0, completed: 1 });
    } finally {
      await close();
    }
  });
});
