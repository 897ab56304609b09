import { describe, expect, it } from "vitest";
import { pendingRunOf } from "../../src/db/enqueue-rules.js";
import { teamRunOutputDict, teamRunOutputSchema } from "../../src/os/wire/teams.js";
import { workflowRunOutputDict, workflowRunOutputSchema } from "../../src/os/wire/workflows.js";
import { runJobInput } from "../../src/queue/run-job-input.js";

/*
 * A background team or workflow run is stored PENDING by the enqueue before its component ever
 * runs: polled then, it must still be agno's TeamRunOutput or WorkflowRunOutput.
 */
const pending = (type: "team" | "workflow") =>
  pendingRunOf(
    runJobInput({
      component: { type, id: "c1", name: "C" },
      message: "later",
      userId: "ann",
      metadata: { k: 1 },
      maxAttempts: 3,
      maxDepth: 10,
    }),
    1_700_000_000,
  );

describe("a PENDING background run on the wire", () => {
  it("of a team is agno's TeamRunOutput, with no member runs yet", () => {
    const dict = teamRunOutputDict(pending("team"));
    expect(teamRunOutputSchema.parse(dict)).toMatchObject({
      team_id: "c1",
      status: "PENDING",
      member_responses: [],
      content_type: "str",
    });
  });

  it("of a workflow is agno's WorkflowRunOutput, its input as given", () => {
    const dict = workflowRunOutputDict(pending("workflow"));
    expect(workflowRunOutputSchema.parse(dict)).toMatchObject({ workflow_id: "c1", status: "PENDING" });
    expect(dict).not.toHaveProperty("step_results");
  });

  it("refuses a field agno's model lacks (the check can fail)", () => {
    expect(() =>
      workflowRunOutputSchema.parse({ ...workflowRunOutputDict(pending("workflow")), messages: [] }),
    ).toThrow();
    expect(() => teamRunOutputSchema.parse({ ...teamRunOutputDict(pending("team")), agent_id: "x" })).toThrow();
  });
});
