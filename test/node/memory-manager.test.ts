import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { z } from "zod";
import { MAX_PAGE_LIMIT } from "../../src/db/pagination.js";
import { NotFoundError } from "../../src/errors.js";
import { respondWithTools } from "../../src/memory/model-call.js";
import { message } from "../../src/models/message.js";
import { tool } from "../../src/tools/tool.js";
import { MemoryManager, SessionSummaryManager } from "../../src/memory/index.js";
import { scriptedModel, memoryTestDb } from "../support/agent-kit.js";

type Sent = { role: string; content: string | null; tool_call_id?: string };
const sent = (body: Record<string, unknown>) => body.messages as Sent[];
const toolNames = (body: Record<string, unknown>) =>
  ((body.tools as Array<{ function: { name: string } }> | undefined) ?? []).map((t) => t.function.name);

describe("MemoryManager after a run (updateMemoryOnRun)", () => {
  it("adds, updates and deletes the user's memories as the model decides, through its tools", async () => {
    const t = memoryTestDb();
    await t.db.upsertUserMemory({ memory_id: "noah-1", user_id: "noah", memory: "Noah plays chess" });
    const { model, script } = await scriptedModel([
      { text: "Lovely, green tea it is." },
      { toolCalls: [{ name: "add_memory", arguments: { memory: "Mia likes green tea", topics: ["drinks"] } }] },
      { text: "Added." },
    ]);
    const agent = new Agent({ model, db: t.db, updateMemoryOnRun: true, instructions: "Be warm." });
    const first = await agent.run("I love green tea", { userId: "mia" });
    expect(first.status).toBe("COMPLETED");
    const [stored] = await t.db.getUserMemories("mia");
    expect(stored).toMatchObject({
      user_id: "mia",
      memory: "Mia likes green tea",
      topics: ["drinks"],
      agent_id: agent.id,
      input: "I love green tea",
    });
    expect(first.metrics.details!.model).toHaveLength(3); // the answer and the manager's two calls
    const requests = await script.requests();
    expect(toolNames(requests[1]!.body).sort()).toEqual(["add_memory", "delete_memory", "update_memory"]);
    expect(sent(requests[1]!.body)[0]!.content).toMatch(/You are a Memory Manager/);
    expect(sent(requests[1]!.body)[1]).toMatchObject({ role: "user", content: "I love green tea" });
    expect(sent(requests[2]!.body).at(-1)).toMatchObject({ role: "tool", content: "Memory added successfully" });
  });

  it("updates by the id it was shown, deletes, and cannot reach another user's memory", async () => {
    const t = memoryTestDb();
    await t.db.upsertUserMemory({ memory_id: "mia-1", user_id: "mia", memory: "Mia likes green tea" });
    await t.db.upsertUserMemory({ memory_id: "mia-2", user_id: "mia", memory: "Mia lives in Lyon" });
    await t.db.upsertUserMemory({ memory_id: "noah-1", user_id: "noah", memory: "Noah plays chess" });
    const { model, script } = await scriptedModel([
      { text: "Oolong, noted." },
      {
        toolCalls: [
          { name: "update_memory", arguments: { memory_id: "mia-1", memory: "Mia now prefers oolong over green tea" } },
          { name: "delete_memory", arguments: { memory_id: "mia-2" } },
          { name: "update_memory", arguments: { memory_id: "noah-1", memory: "hijacked" } },
          { name: "delete_memory", arguments: { memory_id: "noah-1" } },
        ],
      },
      { text: "Done." },
    ]);
    const agent = new Agent({ model, db: t.db, updateMemoryOnRun: true });
    await agent.run("I switched to oolong, and forget where I live", { userId: "mia" });
    const requests = await script.requests();
    const system = sent(requests[0]!.body)[0]!.content!;
    expect(system).toMatch(
      /<memories_from_previous_interactions>\n- (Mia likes green tea|Mia lives in Lyon)\n- (Mia likes green tea|Mia lives in Lyon)\n<\/memories_from_previous_interactions>/,
    );
    expect(sent(requests[1]!.body)[0]!.content).toMatch(/<existing_memories>\nID: mia-\d\nMemory: /);
    expect(sent(requests[1]!.body)[0]!.content).not.toMatch(/noah/);
    const answers = sent(requests[2]!.body)
      .filter((m) => m.role === "tool")
      .map((m) => m.content);
    expect(answers).toEqual([
      "Memory updated successfully",
      "Memory deleted successfully",
      "Error updating memory: no memory noah-1",
      "Error deleting memory: memory noah-1 not found",
    ]);
    expect((await t.db.getUserMemories("mia")).map((m) => [m.memory_id, m.memory])).toEqual([
      ["mia-1", "Mia now prefers oolong over green tea"],
    ]);
    expect((await t.db.getUserMemory("noah-1"))!.memory).toBe("Noah plays chess");
  });

  it("answers a tool's error to the model and goes on: a bad memory id does not stop the calls after it", async () => {
    const t = memoryTestDb();
    const { model, script } = await scriptedModel([
      { text: "Noted." },
      {
        toolCalls: [
          { name: "update_memory", arguments: { memory_id: "x".repeat(300), memory: "too long an id" } },
          { name: "add_memory", arguments: { memory: "Ann keeps bees" } },
        ],
      },
      { text: "Done." },
    ]);
    const agent = new Agent({ model, db: t.db, updateMemoryOnRun: true });
    const out = await agent.run("I keep bees", { userId: "ann" });
    expect(out.memory_update_error).toBeUndefined();
    expect((await t.db.getUserMemories("ann")).map((m) => m.memory)).toEqual(["Ann keeps bees"]);
    const answers = sent((await script.requests())[2]!.body)
      .filter((m) => m.role === "tool")
      .map((m) => m.content);
    expect(answers).toEqual([
      expect.stringMatching(/^Error updating memory: .*memory_id/),
      "Memory added successfully",
    ]);
  });

  it("answers whatever a manager's tool throws as its error, as the run's tools are answered", async () => {
    const { model, script } = await scriptedModel([
      { toolCalls: [{ name: "lookup", arguments: {} }] },
      { text: "It was not there." },
    ]);
    const lookup = tool({
      name: "lookup",
      description: "looks a thing up",
      parameters: z.object({}),
      execute: async () => {
        throw new NotFoundError("thing 7 not found");
      },
    });
    const reply = await respondWithTools(model, [message("user", "find thing 7")], [lookup]);
    expect(reply).toEqual({ text: "It was not there.", toolCalls: 1 });
    const answer = sent((await script.requests())[1]!.body).at(-1)!;
    expect(answer).toMatchObject({ role: "tool", content: "Error: thing 7 not found" });
  });

  it("holds a user to the cap: an add beyond it is refused and the model told to update or delete", async () => {
    const t = memoryTestDb();
    const { model, script } = await scriptedModel([
      { text: "Noted." },
      {
        toolCalls: [
          { name: "add_memory", arguments: { memory: "one" } },
          { name: "add_memory", arguments: { memory: "two" } },
          { name: "add_memory", arguments: { memory: "three" } },
        ],
      },
      { text: "Done." },
    ]);
    const agent = new Agent({
      model,
      db: t.db,
      updateMemoryOnRun: true,
      memoryManager: new MemoryManager({ maxMemoriesPerUser: 2 }),
    });
    await agent.run("three facts", { userId: "ann" });
    expect((await t.db.getUserMemories("ann")).map((m) => m.memory).sort()).toEqual(["one", "two"]);
    const answers = sent((await script.requests())[2]!.body).filter((m) => m.role === "tool");
    expect(answers.at(-1)!.content).toMatch(/^Memory limit reached: this user already has 2 memories/);
    expect(() => new MemoryManager({ maxMemoriesPerUser: 0 })).toThrow(/maxMemoriesPerUser/);
  });

  it("records a failing memory model on the run, which still completes; no user means no memory call", async () => {
    const t = memoryTestDb();
    const { model } = await scriptedModel([{ text: "Hi." }, { error: { status: 400, message: "bad request" } }]);
    const { model: other, script } = await scriptedModel([{ text: "Hello." }]);
    const agent = new Agent({ model, db: t.db, updateMemoryOnRun: true });
    const out = await agent.run("hi", { userId: "ann" });
    expect(out.status).toBe("COMPLETED");
    expect(out.memory_update_error).toBeTruthy();
    const anonymous = new Agent({ model: other, db: t.db, updateMemoryOnRun: true });
    expect((await anonymous.run("hi")).memory_update_error).toBeUndefined();
    expect(await script.requests()).toHaveLength(1);
  });
});

describe("agentic memory (enableAgenticMemory)", () => {
  it("the agent's model calls update_user_memory mid-run; the manager's model carries the task out", async () => {
    const t = memoryTestDb();
    const { model, script } = await scriptedModel([
      { toolCalls: [{ name: "update_user_memory", arguments: { task: "Remember that Ann is vegetarian" } }] },
      { text: "I'll remember that you are vegetarian." },
    ]);
    const { model: memoryModel, script: memoryScript } = await scriptedModel([
      { toolCalls: [{ name: "add_memory", arguments: { memory: "Ann is vegetarian", topics: ["diet"] } }] },
      { text: "Memory added." },
    ]);
    const agent = new Agent({
      model,
      db: t.db,
      enableAgenticMemory: true,
      updateMemoryOnRun: true,
      memoryManager: new MemoryManager({ model: memoryModel }),
    });
    const out = await agent.run("I'm vegetarian", { userId: "ann" });
    expect(out.content).toBe("I'll remember that you are vegetarian.");
    expect(out.tools).toEqual([expect.objectContaining({ tool_name: "update_user_memory", result: "Memory added." })]);
    expect(await t.db.getUserMemories("ann")).toEqual([
      expect.objectContaining({ memory: "Ann is vegetarian", topics: ["diet"], agent_id: agent.id }),
    ]);
    const requests = await script.requests();
    expect(toolNames(requests[0]!.body)).toContain("update_user_memory");
    expect(sent(requests[0]!.body)[0]!.content).toMatch(/<updating_user_memories>/);
    // Agentic memory replaces the update after the run: the memory model was called for the task only.
    const memoryRequests = await memoryScript.requests();
    expect(memoryRequests).toHaveLength(2);
    expect(sent(memoryRequests[0]!.body)[1]).toMatchObject({ content: "Remember that Ann is vegetarian" });
    // The task's tools are agno's defaults for a task: add and update.
    expect(toolNames(memoryRequests[0]!.body).sort()).toEqual(["add_memory", "update_memory"]);
  });
});

describe("session summaries (enableSessionSummaries)", () => {
  it("stores the summary on the session after each run and gives it to the session's next run", async () => {
    const t = memoryTestDb();
    const { model, script } = await scriptedModel([
      { text: "Paris is lovely in May." },
      { text: '{"summary":"The user plans a trip to Paris in May.","topics":["travel","paris"]}' },
      { text: "Pack light." },
      { text: '{"summary":"The user plans a May trip to Paris and asked what to pack."}' },
    ]);
    const agent = new Agent({ model, db: t.db, enableSessionSummaries: true });
    const first = await agent.run("When should I visit Paris?", { userId: "ann" });
    const session = await t.db.getSession(first.session_id);
    expect(session!.record.summary).toMatchObject({
      summary: "The user plans a trip to Paris in May.",
      topics: ["travel", "paris"],
      updated_at: expect.any(String),
    });
    await agent.run("What should I pack?", { userId: "ann", sessionId: first.session_id });
    const requests = await script.requests();
    expect(sent(requests[1]!.body)[0]!.content).toMatch(
      /<conversation>User: When should I visit Paris\?\nAssistant: Paris is lovely in May\.\n<\/conversation>/,
    );
    expect(requests[1]!.body.response_format).toMatchObject({ type: "json_schema" });
    expect(sent(requests[2]!.body)[0]!.content).toMatch(
      /<summary_of_previous_interactions>\nThe user plans a trip to Paris in May\.\n<\/summary_of_previous_interactions>/,
    );
    // The second summary covers both runs.
    expect(sent(requests[3]!.body)[0]!.content).toMatch(/When should I visit Paris\?[\s\S]*What should I pack\?/);
    expect((await t.db.getSession(first.session_id))!.record.summary).toMatchObject({
      summary: "The user plans a May trip to Paris and asked what to pack.",
    });
  });

  it("a summary the model botches is recorded on the run, which completes; lastNRuns bounds what is summarised", async () => {
    const t = memoryTestDb();
    const { model } = await scriptedModel([
      { text: "One." },
      { text: "not json" },
      { text: "Two." },
      { text: '{"summary":"Only the last run."}' },
    ]);
    const agent = new Agent({
      model,
      db: t.db,
      sessionSummaryManager: new SessionSummaryManager({ lastNRuns: 1 }),
      enableSessionSummaries: true,
    });
    const first = await agent.run("first");
    expect(first.status).toBe("COMPLETED");
    expect(first.memory_update_error).toMatch(/not JSON/);
    expect((await t.db.getSession(first.session_id))!.record.summary ?? null).toBeNull();
    await agent.run("second", { sessionId: first.session_id });
    expect((await t.db.getSession(first.session_id))!.record.summary).toMatchObject({ summary: "Only the last run." });
    expect(() => new SessionSummaryManager({ lastNRuns: 0 })).toThrow(/lastNRuns/);
  });
});

describe("MemoryManager.optimizeMemories (agno's summarize strategy)", () => {
  it("replaces the user's memories with the one summary, keeping their topics; other users untouched", async () => {
    const t = memoryTestDb();
    await t.db.upsertUserMemory({
      memory_id: "a",
      user_id: "ann",
      memory: "Ann likes tea",
      topics: ["drinks"],
      agent_id: "x",
    });
    await t.db.upsertUserMemory({
      memory_id: "b",
      user_id: "ann",
      memory: "Ann likes green tea",
      topics: ["tea"],
      agent_id: "x",
    });
    await t.db.upsertUserMemory({ memory_id: "c", user_id: "ben", memory: "Ben likes coffee" });
    const { model, script } = await scriptedModel([
      { text: "Ann likes tea, green tea above all." },
      { text: "Preview." },
    ]);
    const manager = new MemoryManager({ model, db: t.db });
    const preview = await manager.optimizeMemories("ann", { apply: false });
    expect(preview).toEqual([expect.objectContaining({ memory: "Ann likes tea, green tea above all." })]);
    expect(await t.db.getUserMemories("ann")).toHaveLength(2);
    // apply: false made one model call and stored nothing; this one applies.
    const applied = await manager.optimizeMemories("ann");
    expect(applied).toEqual([
      expect.objectContaining({ user_id: "ann", memory: "Preview.", agent_id: "x", team_id: null }),
    ]);
    expect(applied[0]!.topics!.sort()).toEqual(["drinks", "tea"]);
    expect((await t.db.getUserMemories("ann")).map((m) => m.memory)).toEqual(["Preview."]);
    expect((await t.db.getUserMemory("c"))!.memory).toBe("Ben likes coffee");
    const requests = await script.requests();
    expect(sent(requests[0]!.body)[1]!.content).toMatch(/Memory \d: Ann likes (green )?tea\n\nMemory \d: Ann likes/);
    expect(await manager.optimizeMemories("nobody")).toEqual([]);
  });
});

describe("MemoryManager.optimizeMemories on more memories than one read holds", () => {
  it("replaces only the memories it read: the user's unread ones stay", async () => {
    const t = memoryTestDb();
    const count = MAX_PAGE_LIMIT + 1;
    for (let i = 0; i < count; i++)
      await t.db.upsertUserMemory({ memory_id: `m${String(i).padStart(5, "0")}`, user_id: "ann", memory: `fact ${i}` });
    const { model } = await scriptedModel([{ text: "Every fact, summed up." }]);
    const applied = await new MemoryManager({ model, db: t.db }).optimizeMemories("ann");
    expect(applied).toHaveLength(1);
    const left = await t.db.listUserMemories({ userId: "ann", sortBy: "memory_id", sortOrder: "asc" });
    // One read holds MAX_PAGE_LIMIT memories, so exactly one was never read and is still stored.
    expect(left.total_count).toBe(2);
    expect(left.data.map((m) => m.memory)).toEqual(
      expect.arrayContaining(["Every fact, summed up.", expect.stringMatching(/^fact \d+$/)]),
    );
  });
});

describe("memories and summaries in context without updating them", () => {
  it("addMemoriesToContext alone shows the user's memories; a summary manager without enableSessionSummaries makes none", async () => {
    const t = memoryTestDb();
    await t.db.upsertUserMemory({ memory_id: "m", user_id: "ann", memory: "Ann is vegetarian" });
    const { model, script } = await scriptedModel([{ text: "A salad, then." }]);
    const agent = new Agent({
      model,
      db: t.db,
      addMemoriesToContext: true,
      sessionSummaryManager: new SessionSummaryManager(),
    });
    const out = await agent.run("What should I eat?", { userId: "ann" });
    const requests = await script.requests();
    expect(requests).toHaveLength(1);
    expect(sent(requests[0]!.body)[0]!.content).toMatch(/<memories_from_previous_interactions>\n- Ann is vegetarian\n/);
    expect((await t.db.getSession(out.session_id))!.record.summary ?? null).toBeNull();
    expect(await t.db.getUserMemories("ann")).toHaveLength(1);
  });
});
