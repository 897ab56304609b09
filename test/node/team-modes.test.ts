import { describe, expect, it } from "vitest";
import { MemoryDb } from "../../src/db/memory/index.js";
import { Team } from "../../src/team/index.js";
import { collect, scriptedModel } from "../support/agent-kit.js";
import { messagesOf, scriptedAgent } from "../support/team-kit.js";

/** Each of agno's team modes, through Team.run against the scripted model, stored on MemoryDb. */
describe("Team modes", () => {
  it("coordinate: the leader delegates with agno's tool, the member runs as its own row, the leader synthesises", async () => {
    const db = new MemoryDb();
    const researcher = await scriptedAgent("researcher", [{ text: "Aqueducts: 11 in Rome." }], {
      description: "finds facts",
    });
    const writer = await scriptedAgent("writer", []);
    const { model, script } = await scriptedModel([
      {
        toolCalls: [
          {
            id: "d1",
            name: "delegate_task_to_member",
            arguments: { member_id: "researcher", task: "Count aqueducts" },
          },
        ],
      },
      { text: "Rome had 11 aqueducts." },
    ]);
    const team = new Team({ name: "Desk", model, members: [researcher.agent, writer.agent], db });
    const out = await team.run("How many aqueducts did Rome have?", { userId: "ann" });

    expect(out).toMatchObject({ status: "COMPLETED", content: "Rome had 11 aqueducts.", team_id: "desk" });
    expect(out.agent_id).toBeUndefined();
    expect(out.member_responses).toHaveLength(1);
    const member = out.member_responses![0]!;
    expect(member).toMatchObject({
      agent_id: "researcher",
      parent_run_id: out.run_id,
      session_id: out.session_id,
      user_id: "ann",
      status: "COMPLETED",
      content: "Aqueducts: 11 in Rome.",
    });

    // The leader saw the members and agno's delegate tool; the member got the task the leader wrote.
    const [first, second] = await script.requests();
    expect(String(messagesOf(first!)[0]!.content)).toContain('<member id="researcher" name="researcher">');
    expect((first!.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name)).toEqual([
      "delegate_task_to_member",
    ]);
    expect(messagesOf(second!).at(-1)).toMatchObject({ role: "tool", content: "Aqueducts: 11 in Rome." });
    expect(messagesOf((await researcher.requests())[0]!).at(-1)).toMatchObject({
      role: "user",
      content: "Count aqueducts",
    });
    expect(await writer.requests()).toHaveLength(0);

    // Storage: the team run, and the member run as its own row under it, in the team's session.
    const teamRow = await db.getRun(out.run_id);
    expect(teamRow).toMatchObject({ run_type: "team", team_id: "desk", parent_run_id: null, status: "COMPLETED" });
    expect(teamRow!.run_data).toMatchObject({ team_name: "Desk", member_responses: [{ run_id: member.run_id }] });
    const children = await db.getRuns({ parentRunId: out.run_id });
    expect(children.data).toHaveLength(1);
    expect(children.data[0]).toMatchObject({
      run_id: member.run_id,
      run_type: "agent",
      agent_id: "researcher",
      session_id: out.session_id,
      status: "COMPLETED",
    });
    const session = await db.getSession(out.session_id);
    expect(session!.record).toMatchObject({ session_type: "team", team_id: "desk", user_id: "ann" });
  });

  it("route: the chosen member's answer is the team's answer, with no second leader call", async () => {
    const db = new MemoryDb();
    const fr = await scriptedAgent("french", [{ text: "Bonjour !" }]);
    const de = await scriptedAgent("german", []);
    const { model, script } = await scriptedModel([
      { toolCalls: [{ name: "delegate_task_to_member", arguments: { member_id: "french", task: "Greet in French" } }] },
    ]);
    const team = new Team({ name: "lang", mode: "route", model, members: [fr.agent, de.agent], db });
    const out = await team.run("Say hello in French");
    expect(out).toMatchObject({ status: "COMPLETED", content: "Bonjour !" });
    expect(await script.requests()).toHaveLength(1);
    expect(String(messagesOf((await script.requests())[0]!)[0]!.content)).toContain("Mode: route");
    expect((await db.getRuns({ parentRunId: out.run_id })).data.map((r) => r.agent_id)).toEqual(["french"]);
  });

  it("respondDirectly (agno's flag) means route", () => {
    const team = new Team({ name: "t", respondDirectly: true, model: "openai:gpt-4.1", members: [] });
    expect(team.mode).toBe("route");
  });

  it("broadcast: every member gets the task at once, the leader synthesises their answers", async () => {
    const db = new MemoryDb();
    const a = await scriptedAgent("optimist", [{ text: "It will work.", delayMs: 30 }]);
    const b = await scriptedAgent("pessimist", [{ text: "It will fail.", delayMs: 30 }]);
    const { model, script } = await scriptedModel([
      { toolCalls: [{ name: "delegate_task_to_members", arguments: { task: "Will the plan work?" } }] },
      { text: "Opinions differ." },
    ]);
    const team = new Team({ name: "panel", mode: "broadcast", model, members: [a.agent, b.agent], db });
    const events = await collect(team.run("Judge the plan", { stream: true }));
    const out = (await db.getRun(events.at(-1)!.run_id))!.run_data;
    expect(out).toMatchObject({ status: "COMPLETED", content: "Opinions differ." });
    const toolMessage = messagesOf((await script.requests())[1]!).at(-1)!;
    expect(toolMessage.content).toBe("Agent optimist: It will work.\n\nAgent pessimist: It will fail.");
    for (const m of [a, b])
      expect(messagesOf((await m.requests())[0]!).at(-1)).toMatchObject({ content: "Will the plan work?" });
    // Both members ran side by side: each started before either ended.
    const memberEvents = events.filter((e) => e.agent_id && ["RunStarted", "RunCompleted"].includes(e.event));
    expect(memberEvents.map((e) => e.event)).toEqual(["RunStarted", "RunStarted", "RunCompleted", "RunCompleted"]);
    expect((await db.getRuns({ parentRunId: out.run_id })).data).toHaveLength(2);
  });

  it("tasks: the leader plans in the shared task list, members execute tasks, rounds go on until the goal is complete", async () => {
    const db = new MemoryDb();
    const researcher = await scriptedAgent("researcher", [{ text: "3 sources found" }]);
    const writer = await scriptedAgent("writer", [{ text: "Draft written" }]);
    const { model, script } = await scriptedModel([
      {
        toolCalls: [
          { name: "create_task", arguments: { title: "research", assignee: "researcher" } },
          { name: "create_task", arguments: { title: "Proofread", description: "Check it", assignee: "writer" } },
        ],
      },
      { toolCalls: [{ name: "execute_tasks_parallel", arguments: { task_ids: ["t1"] } }] },
      { text: "Round one done." },
      { toolCalls: [{ name: "execute_task", arguments: { task_id: "t2", member_id: "writer" } }] },
      { toolCalls: [{ name: "mark_all_complete", arguments: { summary: "Report written" } }] },
      { text: "Here is the report." },
    ]);
    const team = new Team({ name: "pubs", mode: "tasks", model, members: [researcher.agent, writer.agent], db });
    // The session already holds a plan (the task list lives in the session state): t2 waits on t1.
    const task = (id: string, title: string, assignee: string, dependencies: string[] = []) => ({
      id,
      title,
      description: `${title} the topic`,
      status: "pending",
      assignee,
      parent_id: null,
      dependencies,
      result: null,
      notes: [],
      created_at: 1,
    });
    const plan = { tasks: [task("t1", "Research", "researcher"), task("t2", "Write", "writer", ["t1"])] };
    const events = await collect(
      team.run("Write a short report", { stream: true, sessionState: { _team_tasks: plan } }),
    );

    expect(events.at(-1)).toMatchObject({ event: "TeamRunCompleted", content: "Here is the report." });
    const requests = await script.requests();
    expect(requests).toHaveLength(6);
    const toolNames = (requests[0]!.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name);
    expect(toolNames).toEqual([
      "create_task",
      "update_task_status",
      "list_tasks",
      "add_task_note",
      "mark_all_complete",
      "execute_task",
      "execute_tasks_parallel",
    ]);
    // A duplicate title is refused; the new task is announced as agno's TeamTaskCreated.
    const answers = messagesOf(requests[1]!).filter((m) => m.role === "tool");
    expect(answers[0]!.content).toMatch(/^Task already exists: \[t1\] Research/);
    expect(events.filter((e) => e.event === "TeamTaskCreated")).toMatchObject([{ title: "Proofread" }]);
    // Round two starts from the task list's state, t2 unblocked by t1's completion.
    const roundTwo = String(messagesOf(requests[3]!).at(-1)!.content);
    expect(roundTwo).toContain("<current_task_state>");
    expect(roundTwo).toContain("[t1] Research - COMPLETED (assigned: researcher)");
    expect(roundTwo).toContain("[t2] Write - PENDING (assigned: writer)");
    expect(messagesOf((await writer.requests())[0]!).at(-1)).toMatchObject({ content: "Write the topic" });
    expect(
      events.filter((e) => e.event === "TeamTaskUpdated").map((e) => [(e as { task_id: string }).task_id, e.status]),
    ).toEqual([
      ["t1", "in_progress"],
      ["t1", "completed"],
      ["t2", "in_progress"],
      ["t2", "completed"],
    ]);

    const out = (await db.getRun(events.at(-1)!.run_id))!;
    expect((out.run_data.member_responses as unknown[]).length).toBe(2);
    const session = await db.getSession(out.session_id);
    const stored = (session!.record.session_data!.session_state as Record<string, { tasks: unknown[] }>)._team_tasks;
    expect(stored).toMatchObject({
      goal_complete: true,
      completion_summary: "Report written",
      tasks: [
        { id: "t1", status: "completed", result: "3 sources found" },
        { id: "t2", status: "completed", result: "Draft written" },
        { title: "Proofread", status: "pending", assignee: "writer" },
      ],
    });
  });

  it("tasks: the rounds stop at maxIterations when the goal is never marked complete", async () => {
    const { model, script } = await scriptedModel([{ text: "one" }, { text: "two" }, { text: "three" }]);
    const team = new Team({ name: "t", mode: "tasks", maxIterations: 2, model, members: [] });
    const out = await team.run("Go");
    expect(out).toMatchObject({ status: "COMPLETED", content: "two" });
    expect(await script.requests()).toHaveLength(2);
  });
});
