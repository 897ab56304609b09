import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { RunEvent } from "../../src/agent/events.js";
import type { RunOutput } from "../../src/agent/run-output.js";
import { MemoryDb } from "../../src/db/memory/index.js";
import { Team } from "../../src/team/index.js";
import { tool } from "../../src/tools/tool.js";
import { collect, scriptedModel } from "../support/agent-kit.js";
import { scriptedAgent } from "../support/team-kit.js";
import { until } from "../support/until.js";

const delegate = (member_id: string) => ({
  toolCalls: [{ name: "delegate_task_to_member", arguments: { member_id, task: "Work" } }],
});

/** Reads a run's events until `stop` says so, then hands back the rest to read later. */
async function readUntil(events: AsyncIterable<RunEvent>, stop: (e: RunEvent) => boolean) {
  const it = events[Symbol.asyncIterator]();
  const seen: RunEvent[] = [];
  for (;;) {
    const next = await it.next();
    if (next.done) break;
    seen.push(next.value);
    if (stop(next.value)) break;
  }
  return {
    seen,
    rest: async () => {
      for (;;) {
        const next = await it.next();
        if (next.done) return seen;
        seen.push(next.value);
      }
    },
  };
}

describe("Team cancellation and pauses", () => {
  it("cancelling the team run cancels the member that is running, and both rows say CANCELLED", async () => {
    const db = new MemoryDb();
    const member = await scriptedAgent("slow", [{ hang: true }]);
    const { model, script } = await scriptedModel([delegate("slow"), { text: "never" }]);
    const team = new Team({ id: "t", model, members: [member.agent], db });
    const run = await readUntil(
      team.run("Go", { stream: true }),
      (e) => e.agent_id === "slow" && e.event === "ModelRequestStarted",
    );
    const teamRunId = run.seen[0]!.run_id;
    const memberRunId = run.seen.at(-1)!.run_id;
    expect(await team.cancelRun(teamRunId)).toBe(true);
    const events = await run.rest();

    expect(events.at(-1)).toMatchObject({ event: "TeamRunCancelled", run_id: teamRunId });
    expect(events.find((e) => e.event === "RunCancelled")).toMatchObject({
      run_id: memberRunId,
      parent_run_id: teamRunId,
    });
    expect(await db.getRun(teamRunId)).toMatchObject({ status: "CANCELLED" });
    expect(await db.getRun(memberRunId)).toMatchObject({ status: "CANCELLED", parent_run_id: teamRunId });
    expect((await db.getRun(teamRunId))!.run_data.member_responses).toMatchObject([
      { run_id: memberRunId, status: "CANCELLED" },
    ]);
    // The member's model request was aborted, and the leader was not asked again.
    await until(
      async () => (await member.requests())[0]!.disconnected,
      (gone) => gone,
      "the member's model request to be aborted",
    );
    expect(await script.requests()).toHaveLength(1);
  });

  it("a cancel stored from elsewhere (another process) reaches the team run and its member", async () => {
    const db = new MemoryDb();
    const member = await scriptedAgent("slow", [{ hang: true }]);
    const { model } = await scriptedModel([delegate("slow")]);
    const team = new Team({ id: "t", model, members: [member.agent], db, cancelPollMs: 20 });
    const run = await readUntil(
      team.run("Go", { stream: true }),
      (e) => e.agent_id === "slow" && e.event === "ModelRequestStarted",
    );
    const row = (await db.getRun(run.seen[0]!.run_id))!;
    await db.upsertRun({ ...row.run_data, status: "CANCELLED" }, { expectStatus: ["RUNNING"] });
    const events = await run.rest();
    expect(events.at(-1)).toMatchObject({ event: "TeamRunCancelled" });
    expect(await db.getRun(run.seen.at(-1)!.run_id)).toMatchObject({ status: "CANCELLED" });
  });

  it("a member that pauses for confirmation pauses the team run with the member's requirement", async () => {
    const db = new MemoryDb();
    const ran: string[] = [];
    const deleteFile = tool({
      name: "delete_file",
      parameters: z.object({ path: z.string() }),
      requiresConfirmation: true,
      execute: ({ path }) => ran.push(path),
    });
    const ops = await scriptedAgent(
      "ops",
      [{ toolCalls: [{ id: "c1", name: "delete_file", arguments: { path: "/a" } }] }],
      {
        tools: [deleteFile],
      },
    );
    const { model, script } = await scriptedModel([delegate("ops"), { text: "never" }]);
    const team = new Team({ id: "t", name: "T", model, members: [ops.agent], db });
    const events = await collect(team.run("Clean up", { stream: true, userId: "u" }));

    const paused = events.at(-1)!;
    expect(paused).toMatchObject({ event: "TeamRunPaused", team_id: "t" });
    const memberRun = events.find((e) => e.event === "RunPaused")!;
    expect(memberRun).toMatchObject({ agent_id: "ops", parent_run_id: paused.run_id });
    const requirement = {
      id: "c1",
      kind: "confirmation",
      resolved: false,
      member_agent_id: "ops",
      member_agent_name: "ops",
      member_run_id: memberRun.run_id,
      tool_execution: { tool_name: "delete_file", tool_args: { path: "/a" }, requires_confirmation: true },
    };
    expect((paused as Extract<RunEvent, { event: "TeamRunPaused" }>).requirements).toMatchObject([requirement]);
    const teamRow = (await db.getRun(paused.run_id))!;
    expect(teamRow.status).toBe("PAUSED");
    expect(teamRow.run_data).toMatchObject({
      requirements: [requirement],
      member_responses: [{ run_id: memberRun.run_id, status: "PAUSED" }],
    });
    expect(await db.getRun(memberRun.run_id)).toMatchObject({ status: "PAUSED", parent_run_id: paused.run_id });
    // Nothing ran, and the leader was not asked to go on without the person.
    expect(ran).toEqual([]);
    expect(await script.requests()).toHaveLength(1);
    expect((teamRow.run_data as unknown as RunOutput).messages.at(-1)).toMatchObject({
      role: "tool",
      content: "Member 'ops' requires human input before continuing.",
    });
  });

  it("in broadcast, one paused member pauses the team run once every member has ended", async () => {
    const db = new MemoryDb();
    const ask = tool({
      name: "ask_user",
      parameters: z.object({ question: z.string() }),
      requiresUserInput: true,
      execute: () => "answered",
    });
    const asker = await scriptedAgent(
      "asker",
      [{ toolCalls: [{ id: "q1", name: "ask_user", arguments: { question: "?" } }] }],
      {
        tools: [ask],
      },
    );
    const talker = await scriptedAgent("talker", [{ text: "Said it.", delayMs: 20 }]);
    const { model } = await scriptedModel([
      { toolCalls: [{ name: "delegate_task_to_members", arguments: { task: "Speak" } }] },
    ]);
    const team = new Team({ id: "b", mode: "broadcast", model, members: [asker.agent, talker.agent], db });
    const out = await team.run("Go");
    expect(out.status).toBe("PAUSED");
    expect(out.requirements).toMatchObject([{ id: "q1", kind: "user_input", member_agent_id: "asker" }]);
    expect(out.member_responses!.map((r) => [r.agent_id, r.status])).toEqual([
      ["asker", "PAUSED"],
      ["talker", "COMPLETED"],
    ]);
    expect(out.messages.at(-1)!.content).toBe(
      "Agent asker: Requires human input before continuing.\n\nAgent talker: Said it.",
    );
  });
});
