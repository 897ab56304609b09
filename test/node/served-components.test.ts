import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { createModel } from "../../src/models/providers.js";
import { AgentOS } from "../../src/os/agent-os.js";
import { Team } from "../../src/team/team.js";
import { ComponentRegistry } from "../../src/worker/component-registry.js";
import { Step } from "../../src/workflow/step.js";
import { Workflow } from "../../src/workflow/workflow.js";

const model = createModel("openai:gpt-test", { credentials: { openai: { apiKey: "k" } } });
const agent = (id: string) => new Agent({ id, model });
const team = (id: string) => new Team({ id, model, members: [agent("m")] });
const workflow = (id: string) => new Workflow({ id, name: id, steps: [new Step({ name: "s", executor: () => "x" })] });

describe("teams and workflows served beside agents", () => {
  it("ids are unique per kind: two teams or two workflows with one id are refused, an agent and a team may share one", () => {
    expect(() => new AgentOS({ teams: [team("t"), team("t")] })).toThrow("two teams have the id t");
    expect(() => new AgentOS({ workflows: [workflow("w"), workflow("w")] })).toThrow("two workflows have the id w");
    expect(() => new ComponentRegistry([], {}, { teams: [team("t"), team("t")] })).toThrow("two teams have the id t");
    const os = new AgentOS({ agents: [agent("x")], teams: [team("x")], workflows: [workflow("x")] });
    expect([os.agents.length, os.teams.length, os.workflows.length]).toEqual([1, 1, 1]);
  });

  it("the registry finds each by its ref, for the queue and the scheduler", () => {
    const registry = new ComponentRegistry([agent("x")], {}, { teams: [team("x")], workflows: [workflow("x")] });
    expect(registry.component({ type: "team", id: "x" })).toBeInstanceOf(Team);
    expect(registry.component({ type: "workflow", id: "x" })).toBeInstanceOf(Workflow);
    expect(registry.component({ type: "agent", id: "x" })).toBeInstanceOf(Agent);
    expect(registry.component({ type: "team", id: "nobody" })).toBeUndefined();
  });
});
