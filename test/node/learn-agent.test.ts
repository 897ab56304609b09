import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { Db } from "../../src/db/port.js";
import { LearningMachine } from "../../src/learn/machine.js";
import { buildLearningId, RESERVED_ENTITY_NAMESPACE, userKeySegment } from "../../src/learn/utils.js";
import { EntityMemoryStore } from "../../src/learn/stores/entity-memory.js";
import { scriptedModel } from "../support/agent-kit.js";
import { testStores } from "../support/db-targets.js";

type Msg = { role: string; content: string };
const systemOf = (body: Record<string, unknown>) =>
  (body.messages as Msg[])[0]!.role === "system" ? (body.messages as Msg[])[0]!.content : "";
const toolNames = (body: Record<string, unknown>) =>
  ((body.tools as Array<{ function: { name: string } }> | undefined) ?? []).map((t) => t.function.name).sort();

describe("learning ids", () => {
  it("embed a fixed-width digest of the user under namespace user, and reserve that key shape", async () => {
    const digest = await userKeySegment("ann@example.com");
    expect(digest).toMatch(/^[0-9a-f]{16}$/);
    const ann = await buildLearningId("entity_memory", {
      userId: "ann@example.com",
      entityId: "acme",
      entityType: "company",
      namespace: "user",
    });
    const bob = await buildLearningId("entity_memory", {
      userId: "bob",
      entityId: "acme",
      entityType: "company",
      namespace: "user",
    });
    expect(ann).toBe(`entity_user_${digest}_company_acme`);
    expect(ann).not.toBe(bob);
    expect(ann).not.toContain("ann@example.com");
    expect(
      await buildLearningId("entity_memory", { entityId: "acme", entityType: "company", namespace: "user" }),
    ).toBeNull();
    expect(await buildLearningId("entity_memory", { entityId: "acme", entityType: "company" })).toBe(
      "entity_global_company_acme",
    );
    expect(await buildLearningId("user_profile", { userId: "ann" })).toBe("user_profile_ann");
    expect(await buildLearningId("user_memory", { userId: "ann" })).toBe("memories_ann");
    expect(await buildLearningId("decision_log", { userId: "ann" })).toBeNull();
    expect(RESERVED_ENTITY_NAMESPACE.test(`user_${digest}`)).toBe(true);
    expect(RESERVED_ENTITY_NAMESPACE.test(`user_${digest}_company`)).toBe(true);
    expect(RESERVED_ENTITY_NAMESPACE.test("user")).toBe(false);
    expect(RESERVED_ENTITY_NAMESPACE.test("sales_west")).toBe(false);
    expect(() => new EntityMemoryStore({ namespace: `user_${digest}` })).toThrow(/reserved/);
  });
});

describe.each(testStores())("an agent with learning on %s", (_name, open) => {
  let t: { db: Db; close(): Promise<void> };
  beforeAll(async () => {
    t = open();
    await t.db.init();
  });
  afterAll(() => t.close());

  it("learning: true extracts a user profile and memories after a run and shows them in the next run's system message", async () => {
    const { model, script } = await scriptedModel([
      { text: "Nice to meet you, Ann!" },
      { text: '{"name":"Ann Lee","preferred_name":"Ann"}' },
      { text: '{"add":["Ann is vegetarian"],"update":[],"delete":[]}' },
      { text: "Here is a vegetarian recipe, Ann." },
      { text: '{"name":null,"preferred_name":null}' },
      { text: '{"add":[],"update":[],"delete":[]}' },
    ]);
    const agent = new Agent({ id: "chef", model, db: t.db, learning: true, instructions: "Be helpful." });
    const first = await agent.run("Hi, I'm Ann Lee, call me Ann. I'm vegetarian.", { userId: "ann" });
    expect(first.status).toBe("COMPLETED");
    expect(first.metrics.details!.model).toHaveLength(3); // the answer and the two extractions
    const profile = await t.db.getLearning("user_profile_ann");
    expect(profile).toMatchObject({
      learning_type: "user_profile",
      user_id: "ann",
      agent_id: "chef",
      content: { user_id: "ann", name: "Ann Lee", preferred_name: "Ann" },
    });
    const memories = await t.db.getLearning("memories_ann");
    expect(memories).toMatchObject({ learning_type: "user_memory", user_id: "ann" });
    expect((memories!.content.memories as Array<{ content: string }>).map((m) => m.content)).toEqual([
      "Ann is vegetarian",
    ]);

    const second = await agent.run("Suggest dinner", { userId: "ann" });
    expect(second.content).toBe("Here is a vegetarian recipe, Ann.");
    const requests = await script.requests();
    expect(systemOf(requests[0]!.body)).not.toMatch(/user_profile|user_memory/); // nothing known yet, no tools: no blocks
    expect(requests[1]!.body.response_format).toMatchObject({ type: "json_schema" });
    expect(JSON.stringify(requests[1]!.body.messages)).toContain("call me Ann");
    const system = systemOf(requests[3]!.body);
    expect(system).toMatch(/^Be helpful\.\n\n<user_profile>\nName: Ann Lee\nPreferred Name: Ann\n/);
    expect(system).toMatch(/<user_memory>\n- Ann is vegetarian\n/);
    expect(toolNames(requests[3]!.body)).toEqual([]);
    // The second run taught nothing: nothing changed.
    expect((await t.db.getLearning("memories_ann"))!.content.memories).toHaveLength(1);
    // Another user sees none of it.
    expect(await t.db.getLearning("user_profile_bob")).toBeNull();
  });

  it("the DecisionLog records the decision of each run, with its run and session, and recalls them for the user", async () => {
    const { model, script } = await scriptedModel([
      {
        toolCalls: [
          {
            name: "log_decision",
            arguments: {
              decision: "Use the metric system",
              reasoning: "The user is in France",
              decision_type: "response_style",
            },
          },
        ],
      },
      { text: "It is 20 degrees." },
      { toolCalls: [{ name: "log_decision", arguments: { decision: "Answer briefly", alternatives: "long, short" } }] },
      { text: "Yes." },
      { text: "Hello." },
    ]);
    const agent = new Agent({ id: "decider", model, db: t.db, learning: new LearningMachine({ decisionLog: true }) });
    const r1 = await agent.run("How warm is it?", { userId: "dana" });
    const r2 = await agent.run("Is it sunny?", { userId: "dana" });
    const page = await t.db.listLearnings({
      learningType: "decision_log",
      agentId: "decider",
      sortBy: "created_at",
      sortOrder: "asc",
    });
    expect(page.total_count).toBe(2);
    const byRun = new Map(page.data.map((r) => [r.content.run_id as string, r]));
    expect(byRun.get(r1.run_id)).toMatchObject({
      user_id: "dana",
      session_id: r1.session_id,
      content: {
        decision: "Use the metric system",
        reasoning: "The user is in France",
        decision_type: "response_style",
      },
    });
    expect(byRun.get(r2.run_id)).toMatchObject({
      session_id: r2.session_id,
      content: { alternatives: ["long", "short"] },
    });
    expect(byRun.get(r1.run_id)!.learning_id).toMatch(/^dec_[0-9a-f]{8}$/);
    const requests = await script.requests();
    expect(toolNames(requests[0]!.body)).toEqual(["log_decision", "record_outcome", "search_decisions"]);
    expect(systemOf(requests[0]!.body)).toMatch(
      /<decision_log_instructions>[\s\S]*<decision_log>\nNo recent decisions logged\./,
    );
    expect(systemOf(requests[2]!.body)).toMatch(
      /- \*\*Use the metric system\*\*\n {2}Reasoning: The user is in France/,
    );
    // Another user of the same agent is not shown dana's decisions.
    await agent.run("hi", { userId: "erin" });
    expect(systemOf((await script.requests())[4]!.body)).toMatch(/No recent decisions logged/);
  });

  it("entity memory under namespace user: two users' entities of the same name never collide, and each recalls only their own", async () => {
    const { model, script } = await scriptedModel([
      {
        toolCalls: [
          {
            name: "remember_about",
            arguments: { entity: "Acme", entity_type: "company", facts: ["Acme is our supplier"] },
          },
        ],
      },
      { text: "Noted." },
      {
        toolCalls: [
          {
            name: "remember_about",
            arguments: { entity: "Acme", entity_type: "company", facts: ["Acme is a competitor"] },
          },
        ],
      },
      { text: "Noted too." },
      { text: "Acme supplies you." },
      { toolCalls: [{ name: "search_entities", arguments: { query: "acme" } }] },
      { text: "Found it." },
    ]);
    const learning = new LearningMachine({ entityMemory: { namespace: "user" } });
    const agent = new Agent({ id: "crm", model, db: t.db, learning });
    await agent.run("Acme is our supplier", { userId: "ann" });
    await agent.run("Acme is a competitor", { userId: "bob" });
    const rows = (await t.db.listLearnings({ learningType: "entity_memory", agentId: "crm" })).data;
    expect(rows).toHaveLength(2);
    const ann = rows.find((r) => r.user_id === "ann")!;
    const bob = rows.find((r) => r.user_id === "bob")!;
    expect(ann.learning_id).toBe(`entity_user_${await userKeySegment("ann")}_company_acme`);
    expect(bob.learning_id).toBe(`entity_user_${await userKeySegment("bob")}_company_acme`);
    expect(ann).toMatchObject({ namespace: "user", entity_id: "acme", entity_type: "company" });
    expect((ann.content.facts as Array<{ content: string }>).map((f) => f.content)).toEqual(["Acme is our supplier"]);
    expect((bob.content.facts as Array<{ content: string }>).map((f) => f.content)).toEqual(["Acme is a competitor"]);

    await agent.run("Who is Acme?", { userId: "ann" });
    const third = systemOf((await script.requests())[4]!.body);
    expect(third).toContain("Acme is our supplier");
    expect(third).not.toContain("competitor");
    // bob's search finds his Acme only
    const out = await agent.run("find acme", { userId: "bob" });
    const toolResult = out.tools.find((x) => x.tool_name === "search_entities")!;
    expect(String(toolResult.result)).toContain("Acme is a competitor");
    expect(String(toolResult.result)).not.toContain("supplier");
    // A run without a user records nothing in a per-user namespace.
    const store = learning.entityMemoryStore!;
    expect(
      await store.rememberAbout(
        { db: t.db, userId: null, agentId: "crm" },
        { entity: "Acme", entity_type: "company", facts: ["x"] },
      ),
    ).toMatch(/no user/);
  });

  it("entity memory in the global namespace is one shared row without an owner", async () => {
    const store = new EntityMemoryStore();
    await store.rememberAbout(
      { db: t.db, userId: "ann", agentId: "g" },
      { entity: "Globex", entity_type: "company", facts: ["Globex makes widgets"] },
    );
    await store.rememberAbout(
      { db: t.db, userId: "bob", agentId: "g" },
      { entity: "Globex", entity_type: "company", facts: ["Globex is in Ohio"] },
    );
    const row = await t.db.getLearning("entity_global_company_globex");
    expect(row).toMatchObject({ user_id: null, namespace: "global" });
    expect((row!.content.facts as Array<{ content: string }>).map((f) => f.content)).toEqual([
      "Globex makes widgets",
      "Globex is in Ohio",
    ]);
  });
});
