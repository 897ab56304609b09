import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Team } from "../../src/team/index.js";
import { collect, scriptedModel } from "../support/agent-kit.js";
import { dbTargets, openTestDb, type TestDb } from "../support/db-targets.js";
import { scriptedAgent } from "../support/team-kit.js";

/** A team run stored by the Postgres adapter (on PGlite, and the real server when configured): agno's rows and columns. */
describe.each(dbTargets())("Team on PostgresDb ($name)", (target) => {
  let t: TestDb;
  beforeAll(() => {
    t = openTestDb(target);
  });
  afterAll(() => t.close());

  it("stores the team run and its member runs as agno's rows, in the team's session", async () => {
    const researcher = await scriptedAgent("researcher", [{ text: "Found it." }]);
    const writer = await scriptedAgent("writer", [{ text: "Wrote it." }]);
    const { model } = await scriptedModel([
      {
        toolCalls: [
          { name: "delegate_task_to_member", arguments: { member_id: "researcher", task: "Find" } },
          { name: "delegate_task_to_member", arguments: { member_id: "writer", task: "Write" } },
        ],
      },
      { text: "All done." },
    ]);
    const team = new Team({ name: "Desk", model, members: [researcher.agent, writer.agent], db: t.db });
    const events = await collect(team.run("Go", { stream: true, userId: "ann" }));
    const done = events.at(-1)!;
    expect(done).toMatchObject({ event: "TeamRunCompleted", content: "All done." });

    const rows = await t.query<{
      run_id: string;
      run_type: string;
      agent_id: string | null;
      team_id: string | null;
      parent_run_id: string | null;
      user_id: string;
      status: string;
      session_id: string;
    }>(
      `SELECT run_id, run_type, agent_id, team_id, parent_run_id, user_id, status, session_id
         FROM "${t.schema}".agno_runs ORDER BY created_at, run_type DESC, agent_id`,
    );
    expect(rows).toHaveLength(3);
    const teamRow = rows.find((r) => r.run_type === "team")!;
    expect(teamRow).toMatchObject({ run_id: done.run_id, team_id: "desk", agent_id: null, parent_run_id: null });
    expect(rows.filter((r) => r.run_type === "agent").map((r) => [r.agent_id, r.parent_run_id, r.status])).toEqual(
      expect.arrayContaining([
        ["researcher", done.run_id, "COMPLETED"],
        ["writer", done.run_id, "COMPLETED"],
      ]),
    );
    for (const r of rows) expect(r).toMatchObject({ user_id: "ann", session_id: done.session_id });

    const [session] = await t.query<{ session_type: string; team_id: string }>(
      `SELECT session_type, team_id FROM "${t.schema}".agno_sessions WHERE session_id = $1`,
      [done.session_id],
    );
    expect(session).toEqual({ session_type: "team", team_id: "desk" });
    const stored = (await t.db.getRun(done.run_id))!.run_data;
    expect((stored.member_responses as Array<{ agent_id: string }>).map((r) => r.agent_id).sort()).toEqual([
      "researcher",
      "writer",
    ]);
    expect((await t.db.getRuns({ parentRunId: done.run_id })).total_count).toBe(2);
    // The session's history is the team's own runs: member runs are left out of it.
    const withRuns = await t.db.getSession(done.session_id, { runsLimit: 10 });
    expect(withRuns!.record.runs!.map((r) => r.run_id)).toEqual([done.run_id]);
  });
});
