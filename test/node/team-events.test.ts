import { describe, expect, it } from "vitest";
import type { RunEvent } from "../../src/agent/events.js";
import type { RunOutput } from "../../src/agent/run-output.js";
import { MemoryDb } from "../../src/db/memory/index.js";
import { Team } from "../../src/team/index.js";
import { collect, scriptedModel } from "../support/agent-kit.js";
import { scriptedAgent } from "../support/team-kit.js";

/** Who made an event, in one word: the leader (team id) or a member (agent id). */
const who = (e: RunEvent) => e.team_id ?? e.agent_id;

describe("Team events, nested teams and metrics", () => {
  it("streams agno's team event names, with the member's own events nested in the delegate call", async () => {
    const db = new MemoryDb();
    const member = await scriptedAgent("researcher", [{ text: "Facts.", chunkSize: 100 }]);
    const { model } = await scriptedModel([
      { toolCalls: [{ name: "delegate_task_to_member", arguments: { member_id: "researcher", task: "Find" } }] },
      { text: "Done.", chunkSize: 100 },
    ]);
    const team = new Team({ id: "desk", model, members: [member.agent], db });
    const events = await collect(team.run("Go", { stream: true }));
    const teamRunId = events[0]!.run_id;
    const memberRunId = events.find((e) => e.agent_id)!.run_id;
    expect(events.map((e) => `${who(e)} ${e.event}`)).toEqual([
      "desk TeamRunStarted",
      "desk TeamModelRequestStarted",
      "desk TeamModelRequestCompleted",
      "desk TeamToolCallStarted",
      "researcher RunStarted",
      "researcher ModelRequestStarted",
      "researcher RunContent",
      "researcher ModelRequestCompleted",
      "researcher RunCompleted",
      "desk TeamToolCallCompleted",
      "desk TeamModelRequestStarted",
      "desk TeamRunContent",
      "desk TeamModelRequestCompleted",
      "desk TeamRunCompleted",
    ]);
    // The team's events are the team run's; the member's carry its own run id and the team run as parent.
    for (const e of events.filter((x) => x.team_id)) {
      expect(e).toMatchObject({ run_id: teamRunId, team_id: "desk" });
      expect(e.agent_id).toBeUndefined();
      expect(e.parent_run_id).toBeUndefined();
    }
    for (const e of events.filter((x) => x.agent_id))
      expect(e).toMatchObject({ run_id: memberRunId, agent_id: "researcher", parent_run_id: teamRunId });
    expect(events.find((e) => e.event === "TeamToolCallStarted")).toMatchObject({
      tool: { tool_name: "delegate_task_to_member", tool_args: { member_id: "researcher", task: "Find" } },
    });
  });

  it("runs a team nested in a team: each run is a row under its parent, events and metrics add up through both levels", async () => {
    const db = new MemoryDb();
    const analyst = await scriptedAgent("analyst", [
      { text: "Numbers.", chunkSize: 100, usage: { inputTokens: 100, outputTokens: 7 } },
    ]);
    const inner = new Team({
      id: "analysis",
      name: "Analysis",
      description: "crunches numbers",
      model: (
        await scriptedModel([
          { toolCalls: [{ name: "delegate_task_to_member", arguments: { member_id: "analyst", task: "Crunch" } }] },
          { text: "Analysis: numbers." },
        ])
      ).model,
      members: [analyst.agent],
    });
    const { model, script } = await scriptedModel([
      { toolCalls: [{ name: "delegate_task_to_member", arguments: { member_id: "analysis", task: "Analyse" } }] },
      { text: "Report: numbers." },
    ]);
    const outer = new Team({ id: "board", model, members: [inner], db });
    const events = await collect(outer.run("Report", { stream: true, userId: "u" }));
    const done = events.at(-1)!;
    expect(done).toMatchObject({ event: "TeamRunCompleted", team_id: "board", content: "Report: numbers." });

    // The leader saw the sub-team with its own members.
    expect(JSON.stringify((await script.requests())[0]!.body.messages)).toContain(
      '<member id=\\"analysis\\" name=\\"Analysis\\" type=\\"team\\">',
    );

    // Rows: board ← analysis (a team run) ← analyst (an agent run), all in the board's session.
    const boardRun = (await db.getRun(done.run_id))!;
    const [innerRow] = (await db.getRuns({ parentRunId: boardRun.run_id })).data;
    expect(innerRow).toMatchObject({ run_type: "team", team_id: "analysis", session_id: boardRun.session_id });
    const [analystRow] = (await db.getRuns({ parentRunId: innerRow!.run_id })).data;
    expect(analystRow).toMatchObject({ run_type: "agent", agent_id: "analyst", session_id: boardRun.session_id });
    expect(analystRow!.user_id).toBe("u");

    // Events: the sub-team's under its team names, its member's nested under it.
    const innerEvents = events.filter((e) => e.team_id === "analysis");
    expect(innerEvents[0]).toMatchObject({ event: "TeamRunStarted", parent_run_id: boardRun.run_id });
    expect(innerEvents.at(-1)).toMatchObject({ event: "TeamRunCompleted", parent_run_id: boardRun.run_id });
    expect(events.filter((e) => e.agent_id === "analyst").map((e) => e.parent_run_id)).toEqual(
      Array(5).fill(innerRow!.run_id),
    );

    // Metrics: each level sums its members' with per-member detail; the leaders' own calls stay in details.model.
    const board = boardRun.run_data as unknown as RunOutput;
    const analysis = board.member_responses![0]!;
    expect(analysis.member_responses![0]).toMatchObject({ agent_id: "analyst", content: "Numbers." });
    expect(analysis.metrics).toMatchObject({ input_tokens: 2 * 10 + 100, output_tokens: 2 * 5 + 7 });
    expect(analysis.metrics.details!.members).toMatchObject([
      { agent_id: "analyst", name: "analyst", input_tokens: 100, output_tokens: 7 },
    ]);
    expect(analysis.metrics.details!.model).toHaveLength(2);
    expect(board.metrics).toMatchObject({ input_tokens: 4 * 10 + 100, output_tokens: 4 * 5 + 7 });
    expect(board.metrics.details!.members).toMatchObject([
      { team_id: "analysis", name: "Analysis", run_id: innerRow!.run_id, input_tokens: 120, output_tokens: 17 },
    ]);
    expect(board.metrics.total_tokens).toBe(board.metrics.input_tokens + board.metrics.output_tokens);
  });

  it("delegates straight to a member of a sub-team by its id, as agno finds members recursively", async () => {
    const analyst = await scriptedAgent("analyst", [{ text: "Direct." }]);
    const inner = new Team({ id: "analysis", model: "openai:unused", members: [analyst.agent] });
    const { model } = await scriptedModel([
      { toolCalls: [{ name: "delegate_task_to_member", arguments: { member_id: "analyst", task: "Hi" } }] },
      { text: "ok" },
    ]);
    const out = await new Team({ id: "board", model, members: [inner] }).run("Go");
    expect(out.member_responses).toMatchObject([
      { agent_id: "analyst", content: "Direct.", parent_run_id: out.run_id },
    ]);
  });

  it("tells the leader when it names a member that does not exist", async () => {
    const { model, script } = await scriptedModel([
      { toolCalls: [{ name: "delegate_task_to_member", arguments: { member_id: "ghost", task: "Boo" } }] },
      { text: "Sorry." },
    ]);
    const member = await scriptedAgent("real", []);
    const out = await new Team({ id: "t", model, members: [member.agent] }).run("Go");
    expect(out.content).toBe("Sorry.");
    const answer = (await script.requests())[1]!.body.messages as Array<{ role: string; content: string }>;
    expect(answer.at(-1)!.content).toMatch(/^Member with ID ghost not found in the team or any subteams/);
    expect(answer.at(-1)!.content).toContain('<member id="real"');
  });
});
