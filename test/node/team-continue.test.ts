import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { RunOutput } from "../../src/agent/run-output.js";
import { MemoryDb } from "../../src/db/memory/index.js";
import { ValidationError } from "../../src/errors.js";
import { Team } from "../../src/team/index.js";
import { tool } from "../../src/tools/tool.js";
import { collect, scriptedModel } from "../support/agent-kit.js";
import { messagesOf, scriptedAgent } from "../support/team-kit.js";

const delegate = (member_id: string) => ({
  toolCalls: [{ name: "delegate_task_to_member", arguments: { member_id, task: "Clean up" } }],
});

/** Continuing a team run that a member paused (the stretch goal): routed by the stored runs, the leader resumes with its history. */
describe("Team continue after a member's pause", () => {
  const ran: string[] = [];
  const deleteFile = tool({
    name: "delete_file",
    parameters: z.object({ path: z.string() }),
    requiresConfirmation: true,
    execute: ({ path }) => {
      ran.push(path);
      return `deleted ${path}`;
    },
  });

  it("confirming the member's call runs it, the member finishes, then the leader resumes without planning again", async () => {
    const db = new MemoryDb();
    const ops = await scriptedAgent(
      "ops",
      [{ toolCalls: [{ id: "c1", name: "delete_file", arguments: { path: "/a" } }] }, { text: "Deleted /a." }],
      { tools: [deleteFile] },
    );
    const { model, script } = await scriptedModel([delegate("ops"), { text: "All clean." }]);
    // A new Team object for the continue: everything it needs comes from storage.
    const teamOf = () => new Team({ id: "t", model, members: [ops.agent], db });
    const paused = await teamOf().run("Clean up /a", { userId: "u" });
    expect(paused.status).toBe("PAUSED");

    const events = await collect(
      teamOf().continueRun(paused.run_id, { requirements: [{ id: "c1", confirmed: true }], stream: true, userId: "u" }),
    );
    expect(ran).toContain("/a");
    const memberRunId = paused.requirements[0]!.member_run_id!;
    expect(events.filter((e) => e.agent_id).map((e) => e.event)).toEqual(
      expect.arrayContaining(["RunContinued", "ToolCallCompleted", "RunCompleted"]),
    );
    for (const e of events.filter((x) => x.agent_id))
      expect(e).toMatchObject({ run_id: memberRunId, parent_run_id: paused.run_id });
    const teamEvents = events.filter((e) => e.team_id).map((e) => e.event);
    expect(teamEvents[0]).toBe("TeamRunContinued");
    expect(teamEvents.at(-1)).toBe("TeamRunCompleted");
    // The member's events came before the leader went on.
    expect(events.findIndex((e) => e.event === "RunCompleted")).toBeLessThan(
      events.findIndex((e) => e.event === "TeamRunContinued"),
    );

    // The leader resumed its own transcript: two requests in all, the second with the member's answer in place.
    const requests = await script.requests();
    expect(requests).toHaveLength(2);
    const resumed = messagesOf(requests[1]!);
    expect(resumed.filter((m) => m.role === "user").map((m) => m.content)).toEqual(["Clean up /a"]);
    expect(resumed.at(-1)).toMatchObject({
      role: "tool",
      content: "Member results after human-in-the-loop resolution:\n[ops]: Deleted /a.",
    });

    const team = (await db.getRun(paused.run_id))!;
    expect(team.status).toBe("COMPLETED");
    const out = team.run_data as unknown as RunOutput;
    expect(out).toMatchObject({ content: "All clean.", requirements: [] });
    expect(out.member_responses).toMatchObject([{ run_id: memberRunId, status: "COMPLETED", content: "Deleted /a." }]);
    expect(await db.getRun(memberRunId)).toMatchObject({ status: "COMPLETED", parent_run_id: paused.run_id });
    // Metrics: the leader's two calls and the member's two, the member's share updated after its continue.
    expect(out.metrics.input_tokens).toBe(40);
    expect(out.metrics.details!.members).toMatchObject([{ run_id: memberRunId, input_tokens: 20 }]);
  });

  it("routes by the stored requirements: an id the team run does not hold is refused and nothing moves", async () => {
    const db = new MemoryDb();
    const ops = await scriptedAgent(
      "ops",
      [{ toolCalls: [{ id: "c1", name: "delete_file", arguments: { path: "/b" } }] }],
      {
        tools: [deleteFile],
      },
    );
    const { model } = await scriptedModel([delegate("ops")]);
    const team = new Team({ id: "t", model, members: [ops.agent], db });
    const paused = await team.run("Clean up /b");
    await expect(team.continueRun(paused.run_id, { requirements: [{ id: "nope", confirmed: true }] })).rejects.toThrow(
      ValidationError,
    );
    await expect(team.continueRun(paused.run_id, { requirements: [{ id: "c1" }] })).rejects.toThrow(/confirmed/);
    expect(await db.getRun(paused.run_id)).toMatchObject({ status: "PAUSED" });
    expect(await db.getRun(paused.requirements[0]!.member_run_id!)).toMatchObject({ status: "PAUSED" });
    expect(ran).not.toContain("/b");
  });

  it("a rejection reaches the member, which answers without running the tool", async () => {
    const db = new MemoryDb();
    const ops = await scriptedAgent(
      "ops",
      [{ toolCalls: [{ id: "c1", name: "delete_file", arguments: { path: "/c" } }] }, { text: "Not deleted." }],
      { tools: [deleteFile] },
    );
    const { model } = await scriptedModel([delegate("ops"), { text: "Left it." }]);
    const team = new Team({ id: "t", model, members: [ops.agent], db });
    const paused = await team.run("Clean up /c");
    const out = await team.continueRun(paused.run_id, { requirements: [{ id: "c1", confirmed: false }] });
    expect(out).toMatchObject({ status: "COMPLETED", content: "Left it." });
    expect(ran).not.toContain("/c");
    const memberReq = messagesOf((await ops.requests())[1]!).at(-1)!;
    expect(memberReq.content).toMatch(/rejected/);
  });

  it("a pause deep in a sub-team is continued through the sub-team, then each leader resumes", async () => {
    const db = new MemoryDb();
    const ops = await scriptedAgent(
      "ops",
      [{ toolCalls: [{ id: "c9", name: "delete_file", arguments: { path: "/d" } }] }, { text: "Gone." }],
      { tools: [deleteFile] },
    );
    const innerModel = await scriptedModel([delegate("ops"), { text: "Infra: gone." }]);
    const inner = new Team({ id: "infra", model: innerModel.model, members: [ops.agent] });
    const { model, script } = await scriptedModel([delegate("infra"), { text: "Board: done." }]);
    const outer = () => new Team({ id: "board", model, members: [inner], db });
    const paused = await outer().run("Remove /d");
    expect(paused.status).toBe("PAUSED");
    expect(paused.requirements).toMatchObject([{ id: "c9", member_agent_id: "ops" }]);
    const innerRunId = paused.member_responses![0]!.run_id;
    expect(await db.getRun(innerRunId)).toMatchObject({ status: "PAUSED", team_id: "infra" });

    const out = await outer().continueRun(paused.run_id, { requirements: [{ id: "c9", confirmed: true }] });
    expect(out).toMatchObject({ status: "COMPLETED", content: "Board: done." });
    expect(ran).toContain("/d");
    expect(await db.getRun(innerRunId)).toMatchObject({ status: "COMPLETED", parent_run_id: paused.run_id });
    expect((await innerModel.script.requests()).length).toBe(2);
    expect(messagesOf((await script.requests())[1]!).at(-1)!.content).toBe(
      "Member results after human-in-the-loop resolution:\n[infra]: Infra: gone.",
    );
  });

  it("route: once the member goes on, its answer is the team's, with no further leader call", async () => {
    const db = new MemoryDb();
    const ops = await scriptedAgent(
      "ops",
      [{ toolCalls: [{ id: "c5", name: "delete_file", arguments: { path: "/e" } }] }, { text: "Deleted /e." }],
      { tools: [deleteFile] },
    );
    const { model, script } = await scriptedModel([delegate("ops")]);
    const team = new Team({ id: "r", mode: "route", model, members: [ops.agent], db });
    const paused = await team.run("Remove /e");
    expect(paused.status).toBe("PAUSED");
    const events = await collect(
      team.continueRun(paused.run_id, { requirements: [{ id: "c5", confirmed: true }], stream: true }),
    );
    expect(events.filter((e) => e.team_id).map((e) => e.event)).toEqual([
      "TeamRunContinued",
      "TeamToolCallStarted",
      "TeamToolCallCompleted",
      "TeamRunCompleted",
    ]);
    expect(events.at(-1)).toMatchObject({ content: "Deleted /e." });
    expect(await script.requests()).toHaveLength(1);
    const out = (await db.getRun(paused.run_id))!.run_data as unknown as RunOutput;
    expect(out).toMatchObject({ status: "COMPLETED", content: "Deleted /e." });
    // One answer for the delegate call in the transcript: the member's, not the pause note.
    const answers = out.messages.filter((m) => m.role === "tool");
    expect(answers.map((m) => m.content)).toEqual(["Deleted /e."]);
  });
});
