import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { RunEvent } from "../../src/agent/events.js";
import { MemoryDb } from "../../src/db/memory/index.js";
import { createModel } from "../../src/models/providers.js";
import { Team } from "../../src/team/index.js";
import { scriptModel, type Turn } from "../support/model-script.js";

const modelOf = async (turns: Turn[]) => {
  const script = await scriptModel(env.MODEL_SERVER_URL, turns);
  return createModel("openai:gpt-test", { credentials: { openai: { apiKey: "k", baseURL: script.baseURL } } });
};

/** A team runs inside workerd as under Node: its leader delegates, the member's run is stored under it. */
it("runs a coordinate team in workerd, streaming the member's events between the team's", async () => {
  const db = new MemoryDb();
  const member = new Agent({ id: "researcher", model: await modelOf([{ text: "Facts." }]) });
  const model = await modelOf([
    { toolCalls: [{ name: "delegate_task_to_member", arguments: { member_id: "researcher", task: "Find" } }] },
    { text: "Done." },
  ]);
  const events: RunEvent[] = [];
  for await (const e of new Team({ id: "desk", model, members: [member], db }).run("Go", { stream: true }))
    events.push(e);
  const done = events.at(-1)!;
  expect(done).toMatchObject({ event: "TeamRunCompleted", team_id: "desk", content: "Done." });
  const started = events.findIndex((e) => e.event === "TeamToolCallStarted");
  const memberDone = events.findIndex((e) => e.event === "RunCompleted" && e.agent_id === "researcher");
  const toolDone = events.findIndex((e) => e.event === "TeamToolCallCompleted");
  expect(started).toBeLessThan(memberDone);
  expect(memberDone).toBeLessThan(toolDone);
  expect((await db.getRuns({ parentRunId: done.run_id })).data).toMatchObject([
    { run_type: "agent", agent_id: "researcher", status: "COMPLETED" },
  ]);
});
