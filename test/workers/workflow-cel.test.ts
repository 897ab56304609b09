import { describe, expect, it } from "vitest";
import { MemoryDb } from "../../src/db/memory/index.js";
import { Condition, enableCel, Loop, Router, Step, StepInput, Workflow } from "../../src/sdk.js";

enableCel();

/** A workflow with CEL conditions, end conditions and selectors, inside workerd (no eval there). */
describe("workflow CEL in workerd", () => {
  it("evaluates a Condition, a Loop's end condition and a Router's selector written in CEL", async () => {
    const db = new MemoryDb();
    await db.init();
    const bump = (i: StepInput) => {
      i.session_state.n = ((i.session_state.n as number | undefined) ?? 0) + 1;
      return i.session_state.n === 2 ? "DONE" : "more";
    };
    const flow = new Workflow({
      name: "cel",
      db,
      steps: [
        new Loop({
          name: "count",
          steps: [bump],
          maxIterations: 5,
          endCondition: 'last_step_content.contains("DONE")',
        }),
        new Condition({ name: "twice", evaluator: "session_state.n == 2", steps: [() => "counted twice"] }),
        new Router({
          name: "route",
          choices: [
            new Step({ name: "fr", executor: () => "bonjour" }),
            new Step({ name: "en", executor: () => "hello" }),
          ],
          selector: 'additional_data.lang == "fr" ? "fr" : "en"',
        }),
      ],
    });
    const out = await flow.run("x", { additionalData: { lang: "fr" } });
    expect(out.status).toBe("COMPLETED");
    expect(out.step_results.map((s) => s.steps?.at(-1)?.content)).toEqual(["DONE", "counted twice", "bonjour"]);
    expect((await db.getSession(out.session_id))!.record.session_data!.session_state).toEqual({ n: 2 });
  });
});
