import { describe, expect, it } from "vitest";
import {
  Agent,
  Condition,
  HumanReview,
  Loop,
  Parallel,
  Router,
  Step,
  Workflow,
  enableCel,
  type StepInput,
} from "../../src/sdk.js";
import { memoryTestDb, scriptedModel } from "../support/agent-kit.js";

/** The README's workflow example, through the SDK exports, its agents on the scripted model. */
describe("the README's workflow example", () => {
  it("runs research in parallel, a polishing loop, a condition, a CEL router and an approval", async () => {
    enableCel(); // the README's first line for CEL strings
    const { db } = memoryTestDb();
    const agent = async (name: string, text: string) =>
      new Agent({ name, model: (await scriptedModel([{ text }])).model });
    const webResearcher = await agent("web", "Tides follow the moon.");
    const paperResearcher = await agent("papers", "Spring tides are larger.");
    const editor = await agent("editor", "Edited draft. DONE");
    // As in agno, the step after a Condition that did not run sees the Condition's own output: reach back by name.
    const toBlog = new Step({ name: "toBlog", executor: (i) => `blog: ${String(i.getStepContent("polish"))}` });
    const toNewsletter = new Step({ name: "toNewsletter", executor: () => "mail" });
    let summarised = 0;
    const summarise = () => (summarised++, "summary");
    const published: unknown[] = [];
    const publish = (i: StepInput) => (published.push(i.previous_step_content), "published");

    const flow = new Workflow({
      name: "Blog",
      db,
      sessionState: { drafts: 0 },
      steps: [
        new Parallel({ name: "research", steps: [webResearcher, paperResearcher] }),
        new Loop({
          name: "polish",
          steps: [editor],
          maxIterations: 3,
          endCondition: 'last_step_content.contains("DONE")',
        }),
        new Condition({
          name: "long?",
          evaluator: (i) => String(i.previous_step_content).length > 2000,
          steps: [summarise],
        }),
        new Router({
          name: "publish",
          choices: [toBlog, toNewsletter],
          selector: 'additional_data.channel == "mail" ? "toNewsletter" : "toBlog"',
        }),
        new Step({ name: "approve", executor: publish, humanReview: new HumanReview({ requiresConfirmation: true }) }),
      ],
    });

    const out = await flow.run("Tides", { userId: "ann", additionalData: { channel: "blog" } });
    expect(out.status).toBe("PAUSED");
    expect(out.step_results.map((s) => s.step_name)).toEqual(["research", "polish", "long?", "publish"]);
    // One iteration sufficed: the editor's answer holds DONE.
    expect(out.step_results[1]!.steps).toHaveLength(1);
    expect(summarised).toBe(0);
    expect(out.step_results[3]!.steps!.map((s) => s.content)).toEqual(["blog: Edited draft. DONE"]);
    const done = await flow.continueRun(out.run_id, {
      stepRequirements: [{ step_id: out.step_requirements!.at(-1)!.step_id, confirmed: true }],
    });
    expect(done).toMatchObject({ status: "COMPLETED", content: "published" });
    expect(published).toEqual(["blog: Edited draft. DONE"]);
    expect(done.step_executor_runs.map((r) => r.agent_id).sort()).toEqual(["editor", "papers", "web"]);
  });
});
