import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import type { Db } from "../../src/db/port.js";
import { ForbiddenError, StatusConflictError, ValidationError } from "../../src/errors.js";
import { Parallel, Step, StepInput, Steps, Workflow, type WorkflowStreamEvent } from "../../src/sdk.js";
import { Team } from "../../src/team/index.js";
import { tool } from "../../src/tools/tool.js";
import { collect, scriptedModel } from "../support/agent-kit.js";
import { testStores } from "../support/db-targets.js";
import { scriptedAgent } from "../support/team-kit.js";

/**
 * A Step whose agent pauses for its tools (confirmation, external execution, user input) pauses
 * the workflow run, as agno 3.0's executor HITL does: a requirement naming the agent run and
 * carrying its requirements; `continueRun` resolves them, the agent run goes on, and the
 * workflow goes on from that step. Every continue is made by new objects (another process).
 */
const stores = testStores();

describe.each(stores)("workflow steps whose agent pauses, on %s", (_name, open) => {
  let t: { db: Db; close(): Promise<void> };
  let db: Db;
  beforeAll(async () => {
    t = open();
    db = t.db;
    await db.init();
  });
  afterAll(() => t.close());

  const done: string[] = [];
  const tools = [
    tool({
      name: "delete_file",
      parameters: z.object({ path: z.string() }),
      requiresConfirmation: true,
      execute: ({ path }, ctx) => {
        done.push(`delete ${path}`);
        ctx.sessionState.deleted = path;
        return `deleted ${path}`;
      },
    }),
    tool({ name: "run_shell", parameters: z.object({ cmd: z.string() }), externalExecution: true }),
    tool({
      name: "send_email",
      parameters: z.object({ to: z.string(), body: z.string() }),
      requiresUserInput: true,
      userInputFields: ["to"],
      execute: ({ to, body }) => (done.push(`email ${to}: ${body}`), "sent"),
    }),
    tool({
      name: "wire_money",
      parameters: z.object({ amount: z.number() }),
      requiresApproval: true,
      execute: ({ amount }) => (done.push(`wire ${amount}`), "wired"),
    }),
  ];
  /** prepare, the ops agent inside a Steps, then a report of what the agent said. */
  const flow = (model: Agent["model"], id: string) =>
    new Workflow({
      id,
      name: id,
      db,
      steps: [
        new Step({ name: "prepare", executor: () => "the cleanup plan" }),
        new Steps({
          name: "work",
          steps: [new Step({ name: "ops", executor: new Agent({ id: "ops", name: "ops", model, tools }) })],
        }),
        new Step({
          name: "report",
          executor: (i: StepInput) => `report: ${String(i.previous_step_content)}`,
        }),
      ],
    });

  it("an agent pausing inside a Parallel pauses the run; the other branch is kept, not run again, and the agent goes on", async () => {
    const { model } = await scriptedModel([
      { toolCalls: [{ id: "p1", name: "delete_file", arguments: { path: "/tmp/p" } }] },
      { text: "Deleted /tmp/p." },
    ]);
    let sideRuns = 0;
    const parallelFlow = () =>
      new Workflow({
        id: "ops-parallel",
        name: "ops-parallel",
        db,
        steps: [
          new Parallel({
            name: "both",
            steps: [
              new Step({ name: "side", executor: () => (sideRuns++, "side done") }),
              new Step({ name: "ops", executor: new Agent({ id: "ops", name: "ops", model, tools }) }),
            ],
          }),
          new Step({ name: "report", executor: (i: StepInput) => `report: ${String(i.previous_step_content)}` }),
        ],
      });
    const paused = await parallelFlow().run("clean in parallel");
    expect(paused).toMatchObject({ status: "PAUSED", pause_kind: "executor" });
    const req = paused.step_requirements!.at(-1)!;
    expect(req).toMatchObject({ step_name: "ops", step_path: [0, 1], requires_executor_input: true });
    const done = await parallelFlow().continueRun(paused.run_id, {
      stepRequirements: [{ step_id: req.step_id, executor_requirements: [{ id: "p1", confirmed: true }] }],
    });
    expect(done.status).toBe("COMPLETED");
    expect(sideRuns).toBe(1);
    const both = done.step_results[0]!;
    expect(both.steps!.map((s) => [s.step_name, s.content])).toEqual([
      ["side", "side done"],
      ["ops", "Deleted /tmp/p."],
    ]);
    expect(done.content).toMatch(/^report: /);
  });

  it("pauses the workflow for the agent's confirmation; a continue resolves it and goes on from that step", async () => {
    const { model, script } = await scriptedModel([
      { toolCalls: [{ id: "c1", name: "delete_file", arguments: { path: "/tmp/a" } }] },
      { text: "Deleted /tmp/a." },
    ]);
    const events: WorkflowStreamEvent[] = await collect(flow(model, "ops-confirm").run("clean up", { stream: true }));
    expect(events.map((e) => e.event).slice(-3)).toEqual(["RunPaused", "StepExecutorPaused", "WorkflowPaused"]);
    const runId = events[0]!.run_id;
    const row = (await db.getRun(runId))!;
    expect(row.status).toBe("PAUSED");
    const paused = row.run_data as unknown as {
      pause_kind: string;
      paused_step_name: string;
      step_requirements: Array<Record<string, unknown>>;
      step_executor_runs: Array<{ run_id: string; status: string; agent_id: string }>;
    };
    expect(paused).toMatchObject({ pause_kind: "executor", paused_step_name: "work" });
    const [agentRun] = paused.step_executor_runs;
    expect(agentRun).toMatchObject({ status: "PAUSED", agent_id: "ops" });
    const [req] = paused.step_requirements;
    expect(req).toMatchObject({
      step_name: "ops",
      step_path: [1, 0],
      requires_executor_input: true,
      executor_id: "ops",
      executor_name: "ops",
      executor_type: "agent",
      executor_run_id: agentRun!.run_id,
      executor_requirements: [{ id: "c1", kind: "confirmation", resolved: false }],
    });
    expect(done).not.toContain("delete /tmp/a");
    const stepId = req!.step_id as string;

    // Bad decisions are refused and leave it PAUSED.
    const again = flow(model, "ops-confirm");
    for (const bad of [
      [{ step_id: stepId, confirmed: true }],
      [{ step_id: stepId, executor_requirements: [{ id: "nope", confirmed: true }] }],
      [{ step_id: stepId, executor_requirements: [{ id: "c1" }] }],
      [{ step_id: stepId, executor_requirements: [{ id: "c1", confirmed: "yes" }] }],
    ])
      await expect(again.continueRun(runId, { stepRequirements: bad as never })).rejects.toThrow(ValidationError);
    expect((await db.getRun(runId))!.status).toBe("PAUSED");

    const resumed: WorkflowStreamEvent[] = await collect(
      again.continueRun(runId, {
        stepRequirements: [{ step_id: stepId, executor_requirements: [{ id: "c1", confirmed: true }] }],
        stream: true,
      }),
    );
    const names = resumed.map((e) => e.event);
    expect(names[0]).toBe("StepExecutorContinued");
    expect(resumed[0]).toMatchObject({ executor_run_id: agentRun!.run_id, executor_name: "ops" });
    expect(names).toContain("RunContinued");
    expect(names.at(-1)).toBe("WorkflowCompleted");
    expect(done).toContain("delete /tmp/a");
    const end = (await db.getRun(runId))!;
    expect(end.status).toBe("COMPLETED");
    const out = end.run_data as unknown as {
      content: string;
      step_executor_runs: Array<{ run_id: string; status: string; content: string }>;
    };
    expect(out.content).toBe("report: Deleted /tmp/a.");
    // The agent's one run, continued in place: not a second run.
    expect(out.step_executor_runs).toHaveLength(1);
    expect(out.step_executor_runs[0]).toMatchObject({
      run_id: agentRun!.run_id,
      status: "COMPLETED",
      content: "Deleted /tmp/a.",
    });
    // The tool's change to the session state is the workflow session's.
    expect((await db.getSession(end.session_id))!.record.session_data!.session_state).toMatchObject({
      deleted: "/tmp/a",
    });
    // The model saw the tool's answer on the continued run.
    const calls = await script.requests();
    expect(calls).toHaveLength(2);
    expect(JSON.stringify(calls[1]!.body)).toContain("deleted /tmp/a");
    await expect(
      again.continueRun(runId, {
        stepRequirements: [{ step_id: stepId, executor_requirements: [{ id: "c1", confirmed: true }] }],
      }),
    ).rejects.toThrow(StatusConflictError);
  });

  it("chained pauses of one agent run: external execution, then user input, each a new requirement of the workflow", async () => {
    const { model } = await scriptedModel([
      { toolCalls: [{ id: "x1", name: "run_shell", arguments: { cmd: "du -sh /tmp" } }] },
      { toolCalls: [{ id: "u1", name: "send_email", arguments: { to: "", body: "tmp is 4K" } }] },
      { text: "Reported." },
    ]);
    const first = await flow(model, "ops-chain").run("report tmp size");
    expect(first.step_requirements![0]).toMatchObject({
      executor_requirements: [{ id: "x1", kind: "external_execution" }],
    });
    const second = await flow(model, "ops-chain").continueRun(first.run_id, {
      stepRequirements: [
        {
          step_id: first.step_requirements![0]!.step_id,
          executor_requirements: [{ id: "x1", external_execution_result: "4K" }],
        },
      ],
    });
    expect(second).toMatchObject({ status: "PAUSED", pause_kind: "executor" });
    expect(second.step_requirements).toHaveLength(2);
    const pending = second.step_requirements![1]!;
    // Only what is still to resolve: the resolved external call is history.
    expect(pending.executor_requirements).toEqual([expect.objectContaining({ id: "u1", kind: "user_input" })]);
    expect(pending.executor_run_id).toBe(first.step_requirements![0]!.executor_run_id);
    const third = await flow(model, "ops-chain").continueRun(first.run_id, {
      stepRequirements: [
        { step_id: pending.step_id, executor_requirements: [{ id: "u1", user_input: { to: "ops@example.com" } }] },
      ],
    });
    expect(third.status).toBe("COMPLETED");
    expect(third.content).toBe("report: Reported.");
    expect(done).toContain("email ops@example.com: tmp is 4K");
    expect(third.step_executor_runs).toHaveLength(1);
  });

  it("an admin-only tool needs an admin's approval, and a rejection reaches the agent as its tool's answer", async () => {
    const { model, script } = await scriptedModel([
      { toolCalls: [{ id: "w1", name: "wire_money", arguments: { amount: 5 } }] },
      { text: "Not wired." },
    ]);
    const paused = await flow(model, "ops-admin").run("pay");
    const resolution = [
      { step_id: paused.step_requirements![0]!.step_id, executor_requirements: [{ id: "w1", confirmed: false }] },
    ];
    await expect(flow(model, "ops-admin").continueRun(paused.run_id, { stepRequirements: resolution })).rejects.toThrow(
      ForbiddenError,
    );
    const out = await flow(model, "ops-admin").continueRun(paused.run_id, {
      stepRequirements: resolution,
      approver: { isAdmin: true },
    });
    expect(out.status).toBe("COMPLETED");
    expect(done).not.toContain("wire 5");
    expect(JSON.stringify((await script.requests())[1]!.body)).toContain("rejected");
  });
});

it("a team step whose member pauses for a tool still fails the step (not yet), naming why, without retrying it", async () => {
  const guarded = tool({
    name: "delete_file",
    parameters: z.object({ path: z.string() }),
    requiresConfirmation: true,
    execute: () => "deleted",
  });
  const ops = await scriptedAgent(
    "ops",
    [{ toolCalls: [{ id: "c1", name: "delete_file", arguments: { path: "/a" } }] }],
    {
      tools: [guarded],
    },
  );
  const { model, script } = await scriptedModel([
    { toolCalls: [{ name: "delegate_task_to_member", arguments: { member_id: "ops", task: "Clean up" } }] },
  ]);
  const team = new Team({ id: "desk", model, members: [ops.agent] });
  const out = await new Workflow({
    name: "team-step",
    steps: [new Step({ name: "clean", executor: team, maxRetries: 2 })],
  }).run("clean up");
  expect(out.status).toBe("ERROR");
  expect(out.error!.message).toMatch(/step clean: the team paused for a person.*not yet a team's/);
  expect(await script.requests()).toHaveLength(1);
});
