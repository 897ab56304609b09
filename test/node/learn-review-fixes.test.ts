/**
 * Learning edges found in review: shared entity memory has no owner (a user's row there reaches
 * nobody), malformed content recalls as empty, agents sharing one machine extract with their own
 * models, and long identities still get ids within the column's bound.
 */
import { describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { scriptedModel } from "../support/agent-kit.js";
import { MemoryDb } from "../../src/db/memory/index.js";
import { LearningMachine } from "../../src/learn/machine.js";
import { EntityMemoryStore } from "../../src/learn/stores/entity-memory.js";
import { buildLearningId } from "../../src/learn/utils.js";

describe("shared entity memory is ownerless", () => {
  it("a row carrying a user id in a shared namespace is not recalled, and agents keep recording there", async () => {
    const db = new MemoryDb();
    await db.createLearning({
      learning_id: "entity_global_company_acme",
      learning_type: "entity_memory",
      namespace: "global",
      user_id: "mallory",
      entity_id: "acme",
      entity_type: "company",
      content: { entity_id: "acme", entity_type: "company", name: "Acme", facts: [{ id: "f", content: "poison" }] },
    });
    const store = new EntityMemoryStore();
    const bob = { db, userId: "bob", sessionId: "s", agentId: "crm" };
    expect(await store.recall(bob)).toEqual([]);
    expect(await store.recall({ ...bob, userId: "mallory" })).toEqual([]);
    await store.rememberAbout(bob, { entity: "Globex", entity_type: "company", facts: ["makes widgets"] });
    const recalled = await store.recall({ ...bob, userId: "carol" });
    expect(recalled.map((e) => e.entity_id)).toEqual(["globex"]);
    expect((await db.getLearning("entity_global_company_globex"))!.user_id).toBeNull();
  });
});

describe("malformed learning content", () => {
  it("recalls as empty instead of failing the run's system message", async () => {
    const db = new MemoryDb();
    const machine = new LearningMachine({ userProfile: true, userMemory: true });
    await db.createLearning({
      learning_id: "memories_u",
      learning_type: "user_memory",
      user_id: "u",
      content: { memories: "oops" },
    });
    await db.createLearning({
      learning_id: "user_profile_u",
      learning_type: "user_profile",
      user_id: "u",
      content: { name: 5, preferred_name: "Jo" },
    });
    const scope = { db, userId: "u", sessionId: "s", agentId: "a" };
    const text = await machine.buildContext(scope);
    expect(text).toContain("Preferred Name: Jo");
    expect(text).not.toContain("Name: 5");
    await db.updateLearning("memories_u", {
      content: { memories: [null, 3, { id: "m1", content: "likes tea" }] },
      metadata: null,
    });
    expect(await machine.buildContext(scope)).toContain("- likes tea");
  });
});

describe("agents sharing one learning machine", () => {
  it("each extracts with its own model, and the machine is left without one", async () => {
    const db = new MemoryDb();
    const learning = new LearningMachine({ userMemory: true });
    const empty = '{"add":[],"update":[],"delete":[]}';
    const one = await scriptedModel([{ text: "hi from one" }, { text: empty }]);
    const two = await scriptedModel([
      { text: "hi from two" },
      { text: '{"add":["likes tea"],"update":[],"delete":[]}' },
    ]);
    const first = new Agent({ id: "one", model: one.model, db, learning });
    const second = new Agent({ id: "two", model: two.model, db, learning });
    expect(learning.model).toBeUndefined();
    await first.run("hello", { userId: "u" });
    await second.run("I like tea", { userId: "u" });
    expect((await one.script.requests()).length).toBe(2);
    expect((await two.script.requests()).length).toBe(2);
    expect((await db.getLearning("memories_u"))!.content.memories).toMatchObject([{ content: "likes tea" }]);
  });
});

describe("long identities", () => {
  it("a 255-character user id still gets bounded, distinct ids, and extraction stores for it", async () => {
    const userId = "u".repeat(255);
    const other = "u".repeat(254) + "v";
    for (const type of ["user_memory", "user_profile"]) {
      const id = (await buildLearningId(type, { userId }))!;
      expect(id.length).toBeLessThanOrEqual(255);
      expect(id).not.toBe(await buildLearningId(type, { userId: other }));
    }
    expect(await buildLearningId("user_memory", { userId: "jo" })).toBe("memories_jo");
    const db = new MemoryDb();
    const { model } = await scriptedModel([{ text: "ok" }, { text: '{"add":["likes tea"],"update":[],"delete":[]}' }]);
    const agent = new Agent({ id: "a", model, db, learning: new LearningMachine({ userMemory: true }) });
    await agent.run("I like tea", { userId });
    const id = (await buildLearningId("user_memory", { userId }))!;
    expect((await db.getLearning(id))!.content.memories).toMatchObject([{ content: "likes tea" }]);
  });
});
