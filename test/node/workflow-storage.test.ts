import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import type { Db } from "../../src/db/port.js";
import { ValidationError } from "../../src/errors.js";
import {
  Parallel,
  Router,
  Step,
  StepInput,
  Steps,
  Workflow,
  type WorkflowRunOutput,
  type WorkflowStreamEvent,
} from "../../src/sdk.js";
import { tool } from "../../src/tools/tool.js";
import { collect, scriptedModel } from "../support/agent-kit.js";
import { testStores } from "../support/db-targets.js";
import { until } from "../support/until.js";

/** Workflow runs stored through the Db port (one run row, its session and state), with agent steps on the scripted model. */
const stores = testStores();

const remember = tool({
  name: "remember",
  description: "Remember a fact",
  parameters: z.object({ fact: z.string() }),
  execute: ({ fact }, ctx) => {
    ctx.sessionState.facts = [...((ctx.sessionState.facts as string[] | undefined) ?? []), fact];
    return "ok";
  },
});

describe.each(stores)("workflow storage on %s", (_name, open) => {
  let t: { db: Db; close(): Promise<void> };
  beforeAll(async () => {
    t = open();
    await t.db.init();
  });
  afterAll(() => t.close());

  it("stores one workflow run row; the agent step's run lives in it with parent_run_id, as agno keeps it", async () => {
    const { model, script } = await scriptedModel([
      { toolCalls: [{ name: "remember", arguments: { fact: "tides follow the moon" } }] },
      { text: "Tides rise twice a day.", usage: { inputTokens: 20, outputTokens: 6 } },
    ]);
    // The agent has a db of its own: its run is still kept in the workflow run only.
    const writer = new Agent({ name: "Writer", model, tools: [remember], db: t.db });
    const outline = (input: StepInput) => {
      input.session_state.outlined = true;
      return `Outline: ${String(input.input)}`;
    };
    const flow = new Workflow({
      name: "Blog Flow",
      steps: [outline, new Step({ name: "write", executor: writer })],
      db: t.db,
      sessionState: { drafts: 0 },
    });
    const out = await flow.run("tides", { userId: "ann" });
    expect(out).toMatchObject({
      status: "COMPLETED",
      workflow_id: "blog-flow",
      workflow_name: "Blog Flow",
      user_id: "ann",
      content: "Tides rise twice a day.",
    });
    // The agent was sent the previous step's content.
    const [first] = await script.requests();
    expect((first!.body.messages as Array<{ role: string; content: string }>).at(-1)).toMatchObject({
      role: "user",
      content: "Outline: tides",
    });

    const row = (await t.db.getRun(out.run_id))!;
    expect(row).toMatchObject({
      run_type: "workflow",
      workflow_id: "blog-flow",
      agent_id: null,
      user_id: "ann",
      status: "COMPLETED",
      parent_run_id: null,
      session_id: out.session_id,
    });
    const data = row.run_data as unknown as typeof out;
    expect(data.step_results.map((s) => [s.step_name, s.executor_type, s.success])).toEqual([
      ["outline", "function", true],
      ["write", "agent", true],
    ]);
    const [agentRun] = data.step_executor_runs;
    expect(agentRun).toMatchObject({
      agent_id: "writer",
      parent_run_id: out.run_id,
      workflow_step_id: data.step_results[1]!.step_id,
      status: "COMPLETED",
      content: "Tides rise twice a day.",
    });
    expect(agentRun!.workflow_id).toBeUndefined();
    expect(data.step_results[1]!.step_run_id).toBe(agentRun!.run_id);
    expect(data.metrics.steps.write).toMatchObject({ executor_type: "agent", executor_name: "Writer" });
    // Both of the agent's model calls: 5 (the default) for the tool call, 6 for the answer.
    expect(data.metrics.steps.write!.metrics!.output_tokens).toBe(11);
    // One row in the session: the agent's run is not stored apart.
    const rows = await t.db.getRuns({ sessionId: out.session_id });
    expect(rows.data.map((r) => r.run_id)).toEqual([out.run_id]);

    // The session is the workflow's, and holds the state every step changed (the agent's tool too).
    const session = (await t.db.getSession(out.session_id, { includeRuns: false }))!.record;
    expect(session).toMatchObject({ session_type: "workflow", workflow_id: "blog-flow", user_id: "ann" });
    expect(session.session_data!.session_state).toEqual({
      drafts: 0,
      outlined: true,
      facts: ["tides follow the moon"],
    });
  });

  it("a later run of the session starts from the stored state, and its changes are stored", async () => {
    const bump = (input: StepInput) => {
      input.session_state.count = ((input.session_state.count as number | undefined) ?? 0) + 1;
      return `count ${String(input.session_state.count)}`;
    };
    const flow = new Workflow({ name: "counter", steps: [bump], db: t.db });
    const one = await flow.run("go");
    const two = await flow.run("go", { sessionId: one.session_id });
    expect([one.content, two.content]).toEqual(["count 1", "count 2"]);
    const stored = (await t.db.getSession(one.session_id, { includeRuns: false }))!.record.session_data!;
    expect(stored.session_state).toEqual({ count: 2 });
    expect((await t.db.getRuns({ sessionId: one.session_id, workflowId: "counter" })).total_count).toBe(2);
    // Another user's session is not there; an agent's session is no workflow's.
    await expect(flow.run("go", { sessionId: one.session_id, userId: "bob" })).rejects.toThrow(/not found/);
  });

  it("stores a failed run as ERROR with the steps done so far and the public error", async () => {
    const flow = new Workflow({
      name: "failing",
      steps: [
        () => "fine",
        new Step({
          name: "boom",
          maxRetries: 0,
          executor: () => {
            throw new Error("secret connection string postgres://u:p@h");
          },
        }),
      ],
      db: t.db,
    });
    const events = await collect(flow.run("x", { stream: true }));
    const end = events.at(-1)!;
    expect(end).toMatchObject({ event: "WorkflowError", error_type: "InternalError" });
    const row = (await t.db.getRun(end.run_id))!;
    expect(row.status).toBe("ERROR");
    const data = row.run_data as Record<string, unknown>;
    expect(JSON.stringify(data)).not.toContain("postgres://");
    expect((data.step_results as Array<{ content: string }>).map((s) => s.content)).toEqual(["fine"]);
  });

  it("cancels a running workflow from another call: the run is CANCELLED and no later step runs", async () => {
    let later = 0;
    let release!: () => void;
    const started = new Promise<void>((r) => (release = r));
    const slow = async () => {
      release();
      await new Promise((r) => setTimeout(r, 300));
      return "slow done";
    };
    const flow = new Workflow({
      name: "cancellable",
      steps: [slow, () => (later++, "after")],
      db: t.db,
      cancelPollMs: 20,
    });
    const running = flow.run("x");
    await started;
    const [row] = (await t.db.getRuns({ workflowId: "cancellable", status: "RUNNING" })).data;
    expect(await flow.cancelRun(row!.run_id)).toBe(true);
    const out = await running;
    expect(out.status).toBe("CANCELLED");
    expect(later).toBe(0);
    expect((await t.db.getRun(out.run_id))!.status).toBe("CANCELLED");
  });
  it("a cancel reaches the agent step in flight: its model call is dropped and its run is CANCELLED", async () => {
    const { model, script } = await scriptedModel([{ hang: true }]);
    const flow = new Workflow({
      name: "cancel-agent",
      steps: [new Step({ name: "think", executor: new Agent({ name: "thinker", model }) }), () => "never"],
      db: t.db,
      cancelPollMs: 20,
    });
    // The run goes on only while its events are read: a reader takes them as they come.
    const events: WorkflowStreamEvent[] = [];
    const iterator = flow.run("x", { stream: true })[Symbol.asyncIterator]();
    const reading = (async () => {
      for (;;) {
        const next = await iterator.next();
        if (next.done) return next.value as unknown as WorkflowRunOutput;
        events.push(next.value);
      }
    })();
    // The model server has the request: the agent is waiting on its answer.
    await until(
      () => script.requests(),
      (r) => r.length === 1,
      "the agent's model request",
    );
    const runId = events[0]!.run_id;
    const started = Date.now();
    expect(await flow.cancelRun(runId)).toBe(true);
    const out = await reading;
    expect(out.status).toBe("CANCELLED");
    expect(out.step_executor_runs.map((r) => r.status)).toEqual(["CANCELLED"]);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(events.at(-1)!.event).toBe("WorkflowCancelled");
    expect(events.some((e) => e.event === "StepCompleted")).toBe(false);
    expect((await t.db.getRun(runId))!.status).toBe("CANCELLED");
    await until(
      () => script.requests(),
      (r) => r[0]!.disconnected,
      "the model call dropped",
    );
  });
});

describe("agent steps' events", () => {
  it("a step whose agent pauses for a person pauses the workflow (agno's executor pause), without retrying it", async () => {
    const { model, script } = await scriptedModel([{ toolCalls: [{ name: "remember", arguments: { fact: "x" } }] }]);
    const guarded = tool({
      name: "remember",
      description: "Remember a fact",
      parameters: z.object({ fact: z.string() }),
      requiresConfirmation: true,
      execute: () => "ok",
    });
    const agent = new Agent({ name: "careful", model, tools: [guarded] });
    const out = await new Workflow({
      name: "hitl-agent",
      steps: [new Step({ name: "ask", executor: agent, maxRetries: 2 })],
    }).run("hi");
    expect(out).toMatchObject({ status: "PAUSED", pause_kind: "executor", paused_step_name: "ask" });
    expect(out.step_requirements![0]).toMatchObject({ requires_executor_input: true, executor_name: "careful" });
    // One model call: the paused agent was not run again.
    expect(await script.requests()).toHaveLength(1);
    expect(out.step_executor_runs.map((r) => r.status)).toEqual(["PAUSED"]);
  });

  it("a Router whose selector is an agent: it is shown the choices and picks by name", async () => {
    const { model, script } = await scriptedModel([{ text: "- Video\n" }]);
    const chooser = new Agent({ name: "chooser", model });
    const flow = new Workflow({
      name: "model-router",
      steps: [
        new Router({
          name: "media",
          selector: chooser,
          choices: [
            new Step({ name: "video", description: "cuts clips", executor: () => "video work" }),
            new Step({ name: "image", description: "edits photos", executor: () => "image work" }),
          ],
        }),
      ],
    });
    const out = await flow.run("trim this clip");
    expect(out.content).toBe("video work");
    const [request] = await script.requests();
    const prompt = (request!.body.messages as Array<{ content: string }>).at(-1)!.content;
    expect(prompt).toContain("- video: cuts clips\n- image: edits photos");
    expect(prompt).toContain("Input:\ntrim this clip");
    expect(out.step_executor_runs).toHaveLength(1);
    expect(out.step_executor_runs[0]).toMatchObject({ agent_id: "chooser", parent_run_id: out.run_id });
  });

  it("refuses media through execute (the queue's path) instead of dropping it", () => {
    const flow = new Workflow({ name: "no-media", steps: [() => "x"] });
    expect(() =>
      flow.execute({ message: "hi", stream: false, media: [{ data: "aGk=", mimeType: "text/plain" } as never] }),
    ).toThrow(ValidationError);
  });

  it("runs no further step of a Parallel branch once the stream's reader has left", async () => {
    let finished = 0;
    const slow = async () => {
      await new Promise((r) => setTimeout(r, 50));
      finished++;
      return "slow";
    };
    const flow = new Workflow({
      name: "early-exit",
      steps: [new Parallel({ name: "p", steps: [() => "fast", new Steps({ name: "s", steps: [slow, slow] })] })],
    });
    // The merge pulls the next event of a branch as soon as it has one, so the first slow step is
    // under way when its StepStarted reaches the reader.
    for await (const e of flow.run("x", { stream: true }))
      if (e.event === "StepStarted" && e.step_name === "slow") break;
    await new Promise((r) => setTimeout(r, 150));
    // The first slow step was in flight; the one after it never started.
    expect(finished).toBe(1);
  });

  it("streams the agent's events inside the step, with the workflow's context", async () => {
    const { model: a } = await scriptedModel([{ text: "from A" }]);
    const { model: b } = await scriptedModel([{ text: "from B" }]);
    const flow = new Workflow({
      name: "fan",
      steps: [
        new Parallel({
          name: "both",
          steps: [new Agent({ name: "A", model: a }), new Agent({ name: "B", model: b })],
        }),
      ],
    });
    const events: WorkflowStreamEvent[] = await collect(flow.run("hi", { stream: true }));
    const runId = events[0]!.run_id;
    const agentStarts = events.filter((e) => e.event === "RunStarted");
    expect(agentStarts.map((e) => e.agent_id).sort()).toEqual(["a", "b"]);
    for (const e of agentStarts) {
      expect(e).toMatchObject({ workflow_run_id: runId, session_id: events[0]!.session_id });
      expect(e.run_id).not.toBe(runId);
    }
    // Every agent event sits between its step's StepStarted and StepCompleted.
    const started = events.findIndex((e) => e.event === "StepStarted" && e.step_name === "A");
    const completed = events.findIndex((e) => e.event === "StepCompleted" && e.step_name === "A");
    const aEvents = events.map((e, i) => [e, i] as const).filter(([e]) => "agent_id" in e && e.agent_id === "a");
    expect(aEvents.every(([, i]) => i > started && i < completed)).toBe(true);
    const done = events.at(-1)!;
    expect(done.event).toBe("WorkflowCompleted");
    if (done.event === "WorkflowCompleted")
      expect(done.step_executor_runs.map((r) => r.content).sort()).toEqual(["from A", "from B"]);
  });
});
