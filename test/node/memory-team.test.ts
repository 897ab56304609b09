import { describe, expect, it } from "vitest";
import { Team } from "../../src/team/index.js";
import { sessionDetail } from "../../src/os/session-view.js";
import { memoryTestDb, scriptedModel } from "../support/agent-kit.js";
import { scriptedAgent } from "../support/team-kit.js";

describe("a team's memory and session summaries", () => {
  it("the leader's memory manager stores the team's memories, and the team session carries its summary", async () => {
    const t = memoryTestDb();
    const member = await scriptedAgent("helper", [], { db: t.db });
    const { model, script } = await scriptedModel([
      { text: "Welcome, Ann." },
      { toolCalls: [{ name: "add_memory", arguments: { memory: "Ann leads the design team" } }] },
      { text: "Added." },
      { text: '{"summary":"Ann introduced herself as the design lead."}' },
    ]);
    const team = new Team({
      name: "Desk",
      model,
      members: [member.agent],
      db: t.db,
      updateMemoryOnRun: true,
      enableSessionSummaries: true,
    });
    const out = await team.run("I lead the design team", { userId: "ann" });
    expect(out.status).toBe("COMPLETED");
    expect(await t.db.getUserMemories("ann")).toEqual([
      expect.objectContaining({ memory: "Ann leads the design team", team_id: "desk", agent_id: null }),
    ]);
    const session = await t.db.getSession(out.session_id);
    // The session as GET /sessions/{id} shows it: agno's session_summary.
    expect(sessionDetail(session!)).toMatchObject({
      session_summary: { summary: "Ann introduced herself as the design lead." },
    });
    expect(await script.requests()).toHaveLength(4);
  });
});
