import { describe, expect, it } from "vitest";
import {
  Condition,
  Loop,
  Parallel,
  Router,
  Step,
  StepInput,
  StepOutput,
  Steps,
  Workflow,
  enableCel,
  type WorkflowStreamEvent,
} from "../../src/sdk.js";
import { ValidationError } from "../../src/errors.js";
import { collect } from "../support/agent-kit.js";

enableCel();

/** Function steps need no model: each building block through Workflow.run, as a user calls it. */
const upper = (input: StepInput) => String(input.previous_step_content ?? input.input).toUpperCase();
const exclaim = (input: StepInput) => `${String(input.previous_step_content)}!`;

describe("Workflow building blocks", () => {
  it("runs steps in order, each given the content and outputs of those before", async () => {
    const seen: Array<{ prev: unknown; names: string[] }> = [];
    const record = (input: StepInput) => {
      seen.push({ prev: input.previous_step_content, names: Object.keys(input.previous_step_outputs) });
      return `count=${String(input.getStepContent("upper")).length}`;
    };
    const out = await new Workflow({
      name: "chain",
      steps: [upper, exclaim, new Step({ name: "record", executor: record })],
    }).run("hi there");
    expect(out.status).toBe("COMPLETED");
    expect(out.content).toBe("count=8");
    expect(out.step_results.map((r) => [r.step_name, r.content, r.step_type, r.executor_type])).toEqual([
      ["upper", "HI THERE", "Step", "function"],
      ["exclaim", "HI THERE!", "Step", "function"],
      ["record", "count=8", "Step", "function"],
    ]);
    expect(seen).toEqual([{ prev: "HI THERE!", names: ["upper", "exclaim"] }]);
  });

  it("ends early when a step's output has stop (agno's early termination), also from inside a container", async () => {
    let after = 0;
    const never = () => {
      after++;
      return "ran";
    };
    const top = await new Workflow({
      name: "stop-top",
      steps: [() => new StepOutput({ content: "enough", stop: true }), never],
    }).run("x");
    expect(top.step_results.map((r) => r.content)).toEqual(["enough"]);
    expect(top.content).toBe("enough");
    const nested = await new Workflow({
      name: "stop-nested",
      steps: [
        new Steps({ name: "inner", steps: [() => new StepOutput({ content: "halt", stop: true }), never] }),
        never,
      ],
    }).run("x");
    expect(nested.step_results).toHaveLength(1);
    expect(nested.step_results[0]!.stop).toBe(true);
    expect(nested.content).toBe("halt");
    expect(after).toBe(0);
  });

  it("retries a failing step maxRetries times, then fails the run; skipOnFailure goes on with a failed output", async () => {
    let calls = 0;
    const flaky = () => {
      calls++;
      if (calls < 3) throw new ValidationError(`attempt ${calls} failed`);
      return "third time";
    };
    const ok = await new Workflow({
      name: "retry",
      steps: [new Step({ name: "flaky", executor: flaky, maxRetries: 2 })],
    }).run("x");
    expect(ok.status).toBe("COMPLETED");
    expect(ok.content).toBe("third time");
    expect(calls).toBe(3);

    let tries = 0;
    const broken = () => {
      tries++;
      throw new ValidationError("always broken");
    };
    const failed = await new Workflow({
      name: "fail",
      steps: [new Step({ name: "b", executor: broken, maxRetries: 1 })],
    }).run("x");
    expect(tries).toBe(2);
    expect(failed.status).toBe("ERROR");
    expect(failed.error).toEqual({ message: "always broken", type: "ValidationError" });

    const skipped = await new Workflow({
      name: "skip",
      steps: [new Step({ name: "b", executor: broken, maxRetries: 0, skipOnFailure: true }), () => "after"],
    }).run("x");
    expect(skipped.status).toBe("COMPLETED");
    expect(skipped.step_results[0]).toMatchObject({
      success: false,
      error: "always broken",
      content: "Step b failed but skipped",
    });
    expect(skipped.content).toBe("after");
  });

  it("Loop: stops on its end condition (a function or CEL) or at maxIterations", async () => {
    const counting = (input: StepInput) => {
      const n = ((input.session_state.n as number | undefined) ?? 0) + 1;
      input.session_state.n = n;
      return n >= 3 ? `DONE at ${n}` : `n=${n}`;
    };
    const byFunction = await new Workflow({
      name: "loop-fn",
      steps: [
        new Loop({
          name: "count",
          steps: [counting],
          maxIterations: 10,
          endCondition: (rs) => String(rs.at(-1)?.content).startsWith("DONE"),
        }),
      ],
    }).run("x");
    expect(byFunction.content).toBe("DONE at 3");
    expect(byFunction.step_results[0]!.steps).toHaveLength(3);
    expect(byFunction.step_results[0]!.content).toBe("Loop count completed 3 iterations with 3 total steps");

    const byCel = await new Workflow({
      name: "loop-cel",
      steps: [
        new Loop({
          name: "count",
          steps: [counting],
          maxIterations: 10,
          endCondition: 'last_step_content.contains("DONE")',
        }),
      ],
    }).run("x");
    expect(byCel.content).toBe("DONE at 3");

    const capped = await new Workflow({
      name: "loop-cap",
      steps: [new Loop({ name: "count", steps: [counting], maxIterations: 2, endCondition: "current_iteration >= 5" })],
    }).run("x");
    expect(capped.step_results[0]!.steps!.map((s) => s.content)).toEqual(["n=1", "n=2"]);
  });

  it("Condition: a function, a CEL expression over session_state, an else branch, nothing when false without one", async () => {
    const flow = (evaluator: ConstructorParameters<typeof Condition>[0]["evaluator"], withElse: boolean) =>
      new Workflow({
        name: "cond",
        sessionState: { tier: "gold" },
        steps: [
          new Condition({
            name: "gate",
            evaluator,
            steps: [() => "then"],
            ...(withElse ? { elseSteps: [() => "else"] } : {}),
          }),
        ],
      });
    expect((await flow((i) => String(i.input).includes("go"), true).run("go")).content).toBe("then");
    expect((await flow((i) => String(i.input).includes("go"), true).run("stop")).content).toBe("else");
    expect((await flow('session_state.tier == "gold"', false).run("x")).content).toBe("then");
    expect((await flow('session_state.tier == "silver"', false).run("x")).content).toBe(
      "Condition gate not met - skipped 1 steps",
    );
    expect(() => flow("tier ==", false)).toThrow(ValidationError);
  });

  it("Router: a selector function or CEL picks choices by name, several run in order", async () => {
    const video = new Step({ name: "video", executor: () => "video work" });
    const image = new Step({ name: "image", executor: () => "image work" });
    const byFn = new Workflow({
      name: "route",
      steps: [
        new Router({
          name: "media",
          choices: [video, image],
          selector: (i) => (String(i.input).includes("clip") ? "video" : [image, video]),
        }),
      ],
    });
    expect((await byFn.run("a clip")).step_results[0]!.steps!.map((s) => s.content)).toEqual(["video work"]);
    expect((await byFn.run("a photo")).step_results[0]!.steps!.map((s) => s.content)).toEqual([
      "image work",
      "video work",
    ]);
    const byCel = new Workflow({
      name: "route-cel",
      steps: [
        new Router({ name: "media", choices: [video, image], selector: 'input.contains("clip") ? "video" : "image"' }),
      ],
    });
    expect((await byCel.run("photo")).content).toBe("image work");
  });

  it("nests: a Loop inside a Router, a Parallel inside Steps", async () => {
    const loop = new Loop({
      name: "polish",
      steps: [(i: StepInput) => `${String(i.previous_step_content ?? i.input)}+`],
      maxIterations: 2,
      forwardIterationOutput: true,
    });
    const routed = await new Workflow({
      name: "router-loop",
      steps: [new Router({ name: "pick", choices: [loop, () => "other"], selector: () => "polish" })],
    }).run("draft");
    expect(routed.content).toBe("draft++");
    expect(routed.step_results[0]!.steps![0]!.step_type).toBe("Loop");

    const steps = await new Workflow({
      name: "steps-parallel",
      steps: [
        new Steps({
          name: "research",
          steps: [
            new Parallel({
              name: "fan",
              steps: [new Step({ name: "a", executor: () => "A" }), new Step({ name: "b", executor: () => "B" })],
            }),
            (i: StepInput) => ({ last: i.previous_step_content, all: i.getStepContent("fan") }),
          ],
        }),
      ],
    }).run("x");
    // As agno: a function step after a Parallel sees its last branch's content; getStepContent has them all.
    expect(steps.content).toEqual({ last: "B", all: { a: "A", b: "B" } });
    const fan = steps.step_results[0]!.steps![0]!;
    expect(fan.step_type).toBe("Parallel");
    expect(fan.steps!.map((s) => s.content)).toEqual(["A", "B"]);
  });

  it("Parallel: each branch works on its own copy of session_state, merged in declaration order", async () => {
    const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const seenByBranch: unknown[] = [];
    const slowFirst = async (i: StepInput) => {
      await delay(30);
      seenByBranch.push(structuredClone(i.session_state));
      i.session_state.winner = "first";
      (i.session_state.log as string[]).push("first");
      i.session_state.onlyFirst = true;
      return "first";
    };
    const fastSecond = (i: StepInput) => {
      i.session_state.winner = "second";
      (i.session_state.log as string[]).push("second");
      return "second";
    };
    const out = await new Workflow({
      name: "merge",
      sessionState: { log: ["start"] },
      steps: [
        new Parallel({ name: "both", steps: [slowFirst, fastSecond] }),
        (i: StepInput) => ({ ...i.session_state }),
      ],
    }).run("x");
    // The slow branch did not see the fast one's writes: it had its own copy.
    expect(seenByBranch).toEqual([{ log: ["start"] }]);
    // Declaration order: the second branch's value wins a key both set, though it finished first.
    expect(out.content).toEqual({ log: ["start", "first", "second"], winner: "second", onlyFirst: true });
  });

  it("refuses bad definitions and bad input with a ValidationError", async () => {
    expect(() => new Workflow({ name: "", steps: [] })).toThrow(ValidationError);
    expect(() => new Workflow({ name: "x", steps: [42 as never] })).toThrow(ValidationError);
    expect(() => new Step({ name: "x", executor: "nope" as never })).toThrow(ValidationError);
    expect(() => new Loop({ steps: [upper], maxIterations: 0 })).toThrow(ValidationError);
    const flow = new Workflow({ name: "x", steps: [upper] });
    await expect(flow.run(undefined)).rejects.toThrow(ValidationError);
    expect(() => flow.run("x", { stream: true, sessionState: [] as never })).toThrow(ValidationError);
  });

  it("streams agno's event names in order", async () => {
    const flow = new Workflow({
      name: "events",
      steps: [
        upper,
        new Loop({ name: "twice", steps: [exclaim], maxIterations: 2 }),
        new Condition({ name: "if", evaluator: true, steps: [exclaim] }),
        new Router({ name: "r", choices: [exclaim], selector: () => "exclaim" }),
        new Parallel({ name: "p", steps: [exclaim] }),
        new Steps({ name: "s", steps: [exclaim] }),
      ],
    });
    const events: WorkflowStreamEvent[] = await collect(flow.run("go", { stream: true }));
    expect(events.map((e) => e.event)).toEqual([
      "WorkflowStarted",
      "StepStarted",
      "StepOutput",
      "StepCompleted",
      "LoopExecutionStarted",
      "LoopIterationStarted",
      "StepStarted",
      "StepCompleted",
      "LoopIterationCompleted",
      "LoopIterationStarted",
      "StepStarted",
      "StepCompleted",
      "LoopIterationCompleted",
      "LoopExecutionCompleted",
      "ConditionExecutionStarted",
      "StepStarted",
      "StepCompleted",
      "ConditionExecutionCompleted",
      "RouterExecutionStarted",
      "StepStarted",
      "StepCompleted",
      "RouterExecutionCompleted",
      "ParallelExecutionStarted",
      "StepStarted",
      "StepCompleted",
      "ParallelExecutionCompleted",
      "StepsExecutionStarted",
      "StepStarted",
      "StepCompleted",
      "StepsExecutionCompleted",
      "WorkflowCompleted",
    ]);
    const runId = events[0]!.run_id;
    expect(events.every((e) => e.run_id === runId && e.workflow_id === "events" && e.workflow_name === "events")).toBe(
      true,
    );
    const loopStart = events.find((e) => e.event === "LoopExecutionStarted")!;
    const inLoop = events.find((e, i) => e.event === "StepStarted" && i > events.indexOf(loopStart))!;
    expect(inLoop).toMatchObject({ step_name: "exclaim", step_index: [1, 0], parent_step_id: loopStart.step_id });
    expect(events.find((e) => e.event === "LoopIterationCompleted")).toMatchObject({
      iteration: 1,
      should_continue: true,
    });
    const done = events.at(-1)!;
    // Each iteration of a Loop starts from the Loop's input (no forwardIterationOutput): one "!" for it.
    expect(done).toMatchObject({ event: "WorkflowCompleted", content: "GO!!!!!" });
  });
});
