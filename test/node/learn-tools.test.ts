import { describe, expect, it, vi } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { MemoryDb } from "../../src/db/memory/index.js";
import { LearningMachine } from "../../src/learn/machine.js";
import { scriptedModel } from "../support/agent-kit.js";

type Msg = { role: string; content: string };
const systemOf = (body: Record<string, unknown>) => (body.messages as Msg[])[0]!.content;

describe("learning stores in agentic mode and their edges", () => {
  it("agentic profile and memory: the agent's tools write the user's rows, and the memory tool asks the model", async () => {
    const db = new MemoryDb();
    const { model, script } = await scriptedModel([
      {
        toolCalls: [
          { name: "update_profile", arguments: { preferred_name: "Jo" } },
          { name: "update_user_memory", arguments: { task: "remember that the user runs marathons" } },
        ],
      },
      { text: '{"add":["The user runs marathons"],"update":[],"delete":[]}' },
      { text: "Got it, Jo." },
      { text: "Hi Jo." },
    ]);
    const learning = new LearningMachine({ userProfile: { mode: "agentic" }, userMemory: { mode: "agentic" } });
    const agent = new Agent({ id: "coach", model, db, learning });
    const out = await agent.run("Call me Jo. I run marathons.", { userId: "jo" });
    expect(out.content).toBe("Got it, Jo.");
    expect((await db.getLearning("user_profile_jo"))!.content).toMatchObject({ preferred_name: "Jo" });
    expect((await db.getLearning("memories_jo"))!.content.memories).toMatchObject([
      { content: "The user runs marathons" },
    ]);
    const requests = await script.requests();
    expect(systemOf(requests[0]!.body)).toContain("<user_profile>\nNo profile information saved about this user yet.");
    expect(JSON.stringify(requests[1]!.body.messages)).toContain("remember that the user runs marathons");
    await agent.run("hello", { userId: "jo" });
    const later = systemOf((await script.requests())[3]!.body);
    expect(later).toMatch(/<user_profile_instructions>[\s\S]*Preferred Name: Jo[\s\S]*- The user runs marathons/);
  });

  it("a failing extraction is logged and the run stands; an edit beyond maxUpdatesPerRun is not made", async () => {
    const db = new MemoryDb();
    const { model } = await scriptedModel([
      { text: "Sure." },
      { text: "not json" },
      { text: "Ok." },
      { text: '{"add":["one","two","three"],"update":[],"delete":[]}' },
    ]);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const agent = new Agent({ model, db, learning: new LearningMachine({ userMemory: true, maxUpdatesPerRun: 2 }) });
      const first = await agent.run("hi", { userId: "kim" });
      expect(first.status).toBe("COMPLETED");
      expect(warn.mock.calls.flat().join(" ")).toMatch(/learning \(user_memory\).*not JSON/);
      expect(await db.getLearning("memories_kim")).toBeNull();
      await agent.run("facts", { userId: "kim" });
      expect(
        ((await db.getLearning("memories_kim"))!.content.memories as Array<{ content: string }>).map((m) => m.content),
      ).toEqual(["one", "two"]);
    } finally {
      warn.mockRestore();
    }
  });

  it("a run without a user learns nothing about users; the tools store through the bound db", async () => {
    const base = new MemoryDb();
    const bound = new MemoryDb();
    const { model, script } = await scriptedModel([
      { toolCalls: [{ name: "log_decision", arguments: { decision: "Stay brief" } }] },
      { text: "Ok." },
      { text: '{"add":[],"update":[],"delete":[]}' },
      { text: "Anonymous answer." },
    ]);
    const agent = new Agent({
      id: "d",
      model,
      db: base,
      learning: new LearningMachine({ decisionLog: true, userMemory: true }),
    });
    await agent.withDb(bound).run("hi", { userId: "u" });
    expect((await bound.listLearnings({ learningType: "decision_log" })).total_count).toBe(1);
    expect((await base.listLearnings()).total_count).toBe(0);
    const anonymous = await agent.run("hello");
    expect(anonymous.status).toBe("COMPLETED");
    expect(anonymous.content).toBe("Anonymous answer.");
    // no extraction call was made for the run without a user: four model requests in all
    expect(await script.requests()).toHaveLength(4);
  });

  it("record_outcome updates the caller's own decision and calls another user's missing", async () => {
    const db = new MemoryDb();
    await db.upsertLearning({
      learning_id: "dec_aaaaaaaa",
      learning_type: "decision_log",
      user_id: "other",
      agent_id: "o",
      content: { id: "dec_aaaaaaaa", decision: "theirs" },
    });
    await db.upsertLearning({
      learning_id: "dec_bbbbbbbb",
      learning_type: "decision_log",
      user_id: "me",
      agent_id: "o",
      content: { id: "dec_bbbbbbbb", decision: "mine" },
    });
    const { model } = await scriptedModel([
      {
        toolCalls: [
          { name: "record_outcome", arguments: { decision_id: "dec_aaaaaaaa", outcome: "bad" } },
          {
            name: "record_outcome",
            arguments: { decision_id: "dec_bbbbbbbb", outcome: "good", outcome_quality: "good" },
          },
        ],
      },
      { text: "Done." },
    ]);
    const agent = new Agent({ id: "o", model, db, learning: new LearningMachine({ decisionLog: true }) });
    const out = await agent.run("update", { userId: "me" });
    expect(out.tools.map((t) => t.result)).toEqual([
      "Decision dec_aaaaaaaa not found",
      "Outcome recorded for decision dec_bbbbbbbb",
    ]);
    expect((await db.getLearning("dec_aaaaaaaa"))!.content).not.toHaveProperty("outcome");
    expect((await db.getLearning("dec_bbbbbbbb"))!.content).toMatchObject({ outcome: "good", outcome_quality: "good" });
  });
});
