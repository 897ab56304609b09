import { describe, expect, it } from "vitest";
import { ValidationError } from "../../src/errors.js";
import { Condition, enableCel, Step, Workflow } from "../../src/sdk.js";

// A file of its own: the CEL engine is off until enableCel() in this module graph.
describe("CEL strings need enableCel()", () => {
  it("refuses a CEL string before enableCel() with a message that says so, and evaluates it after", async () => {
    const step = new Step({ name: "yes", executor: () => "ran" });
    const define = () => new Condition({ name: "c", evaluator: 'input == "go"', steps: [step] });
    expect(define).toThrow(ValidationError);
    expect(define).toThrow(/enableCel\(\)/);
    // A function needs no engine.
    expect(() => new Condition({ name: "f", evaluator: () => true, steps: [step] })).not.toThrow();
    enableCel();
    const flow = new Workflow({ name: "cel-on", steps: [define()] });
    expect((await flow.run("go")).content).toBe("ran");
    expect(() => new Condition({ name: "bad", evaluator: "input ==", steps: [step] })).toThrow(/not a CEL expression/);
  });
});
