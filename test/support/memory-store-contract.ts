import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConflictError, NotFoundError, ValidationError } from "../../src/errors.js";
import type { MemoryRecord } from "../../src/db/types.js";
import type { ContractDb } from "./db-contract.js";

/**
 * The user memories' storage contract (agno's `get_user_memories`, `get_user_memory`,
 * `delete_user_memories`, `get_all_memory_topics`, `get_user_memory_stats`) and a session's
 * summary, part of the Db contract. It opens a database of its own: its unscoped reads (an
 * admin's) must see exactly the rows it wrote.
 */
export function describeMemoryStoreContract(make: () => ContractDb | Promise<ContractDb>): void {
  describe("user memories", () => {
    let c: ContractDb;
    beforeAll(async () => {
      c = await make();
      await c.db.init();
      const rows: MemoryRecord[] = [
        { memory_id: "a1", user_id: "ann", memory: "Ann drinks green tea", topics: ["drinks", "tea"], created_at: 100 },
        { memory_id: "a2", user_id: "ann", memory: "Ann lives in Lyon", topics: ["location"], created_at: 300 },
        {
          memory_id: "a3",
          user_id: "ann",
          memory: "Ann's 100%_organic garden",
          topics: ["garden"],
          agent_id: "helper",
          created_at: 200,
        },
        { memory_id: "b1", user_id: "ben", memory: "Ben drinks black TEA", topics: ["drinks"], team_id: "crew" },
      ];
      for (const m of rows) await c.db.upsertUserMemory(m);
    });
    afterAll(() => c.close());
    const ids = (rows: MemoryRecord[]) => rows.map((m) => m.memory_id);

    it("reads one memory, scoped to its user: another user's is null", async () => {
      expect(await c.db.getUserMemory("a1", { userId: "ann" })).toMatchObject({
        memory_id: "a1",
        user_id: "ann",
        memory: "Ann drinks green tea",
        topics: ["drinks", "tea"],
        created_at: 100,
      });
      expect(await c.db.getUserMemory("a1", { userId: "ben" })).toBeNull();
      expect((await c.db.getUserMemory("a1"))!.user_id).toBe("ann");
      expect(await c.db.getUserMemory("nope")).toBeNull();
    });

    it("lists with agno's filters, sort and pages, with the total of what matched", async () => {
      const ann = await c.db.listUserMemories({ userId: "ann", sortBy: "created_at", sortOrder: "asc" });
      expect(ids(ann.data)).toEqual(["a1", "a3", "a2"]);
      expect(ann).toMatchObject({ total_count: 3, page: 1, total_pages: 1 });
      const page2 = await c.db.listUserMemories({ userId: "ann", sortBy: "created_at", limit: 2, page: 2 });
      expect(ids(page2.data)).toEqual(["a1"]);
      expect(page2).toMatchObject({ total_count: 3, total_pages: 2, page: 2, limit: 2 });
      expect((await c.db.listUserMemories({ userId: "ann", limit: 2, page: 5 })).total_count).toBe(3);
      expect(
        ids((await c.db.listUserMemories({ topics: ["drinks"], sortBy: "memory_id", sortOrder: "asc" })).data),
      ).toEqual(["a1", "b1"]);
      expect(ids((await c.db.listUserMemories({ topics: ["drinks", "tea"] })).data)).toEqual(["a1"]);
      // Case-insensitive, and `%`/`_` match themselves only.
      expect(
        ids((await c.db.listUserMemories({ searchContent: "tea", sortBy: "memory_id", sortOrder: "asc" })).data),
      ).toEqual(["a1", "b1"]);
      expect(ids((await c.db.listUserMemories({ searchContent: "100%_org" })).data)).toEqual(["a3"]);
      expect((await c.db.listUserMemories({ searchContent: "1_0" })).total_count).toBe(0);
      expect(ids((await c.db.listUserMemories({ agentId: "helper" })).data)).toEqual(["a3"]);
      expect(ids((await c.db.listUserMemories({ teamId: "crew" })).data)).toEqual(["b1"]);
      expect((await c.db.listUserMemories({ userId: "ben", searchContent: "green" })).total_count).toBe(0);
      expect(ids((await c.db.listUserMemories({ sortBy: "user_id", sortOrder: "desc" })).data)[0]).toBe("b1");
    });

    it("refuses a bad query or memory with a ValidationError naming the field", async () => {
      await expect(c.db.listUserMemories({ sortBy: "memory" as never })).rejects.toThrow(/sort_by/);
      await expect(c.db.listUserMemories({ limit: 0 })).rejects.toThrow(ValidationError);
      await expect(c.db.listUserMemories({ page: 2 })).rejects.toThrow(/page/);
      await expect(
        c.db.upsertUserMemory({ memory_id: "x", user_id: "ann", memory: "ok", topics: [""] }),
      ).rejects.toThrow(/topics/);
      expect(await c.db.getUserMemory("x")).toBeNull();
    });

    it("lists the distinct topics, sorted, per user or of everyone", async () => {
      expect(await c.db.getMemoryTopics({ userId: "ben" })).toEqual(["drinks"]);
      expect(await c.db.getMemoryTopics()).toEqual(["drinks", "garden", "location", "tea"]);
      expect(await c.db.getMemoryTopics({ userId: "nobody" })).toEqual([]);
    });

    it("counts memories per user, paged", async () => {
      const all = await c.db.getUserMemoryStats();
      expect(all.total_count).toBe(2);
      expect(Object.fromEntries(all.data.map((s) => [s.user_id, s.total_memories]))).toEqual({ ann: 3, ben: 1 });
      expect(all.data.every((s) => typeof s.last_memory_updated_at === "number")).toBe(true);
      const ben = await c.db.getUserMemoryStats({ userId: "ben" });
      expect(ben.data).toEqual([{ user_id: "ben", total_memories: 1, last_memory_updated_at: expect.any(Number) }]);
      const one = await c.db.getUserMemoryStats({ limit: 1, page: 2 });
      expect(one).toMatchObject({ total_count: 2, total_pages: 2 });
      expect(one.data).toHaveLength(1);
    });

    it("deletes many all or nothing: one unknown or another user's id and nothing goes", async () => {
      await c.db.upsertUserMemory({ memory_id: "d1", user_id: "ann", memory: "to go 1" });
      await c.db.upsertUserMemory({ memory_id: "d2", user_id: "ann", memory: "to go 2" });
      await expect(c.db.deleteUserMemories(["d1", "b1"], { userId: "ann" })).rejects.toThrow(NotFoundError);
      await expect(c.db.deleteUserMemories(["d1", "missing"])).rejects.toThrow(/missing/);
      expect(await c.db.getUserMemory("d1")).not.toBeNull();
      expect(await c.db.getUserMemory("b1")).not.toBeNull();
      expect(await c.db.deleteUserMemories(["d1", "d2", "d1"], { userId: "ann" })).toBe(2);
      expect(await c.db.getUserMemory("d2")).toBeNull();
      await expect(c.db.deleteUserMemory("b1", { userId: "ann" })).rejects.toThrow(NotFoundError);
      await c.db.upsertUserMemory({ memory_id: "d3", user_id: "ben", memory: "an admin removes this" });
      await c.db.deleteUserMemory("d3");
      expect(await c.db.getUserMemory("d3")).toBeNull();
    });

    it("replaces a user's whole set in one write, leaving other users alone", async () => {
      await c.db.upsertUserMemory({ memory_id: "r1", user_id: "cleo", memory: "Cleo sings" });
      await c.db.upsertUserMemory({ memory_id: "r2", user_id: "cleo", memory: "Cleo dances" });
      const after = await c.db.replaceUserMemories("cleo", "all", [
        { memory_id: "r9", user_id: "cleo", memory: "Cleo sings and dances", topics: ["arts"], agent_id: "helper" },
      ]);
      expect(after).toMatchObject([{ memory_id: "r9", user_id: "cleo", topics: ["arts"], agent_id: "helper" }]);
      expect(ids(await c.db.getUserMemories("cleo"))).toEqual(["r9"]);
      await expect(
        c.db.replaceUserMemories("cleo", ["r9"], [{ memory_id: "b1", user_id: "cleo", memory: "takes ben's id" }]),
      ).rejects.toThrow(ConflictError);
      expect(ids(await c.db.getUserMemories("cleo"))).toEqual(["r9"]);
      await expect(
        c.db.replaceUserMemories("cleo", ["r9"], [{ memory_id: "r10", user_id: "ben", memory: "not cleo's" }]),
      ).rejects.toThrow(ValidationError);
      expect(await c.db.getUserMemory("b1", { userId: "ben" })).not.toBeNull();
      expect(await c.db.replaceUserMemories("cleo", "all", [])).toEqual([]);
      expect(await c.db.getUserMemories("cleo")).toEqual([]);
    });

    it("replaces only the memories named (those read): the user's others stay, as do others' named ids", async () => {
      for (const id of ["u1", "u2", "u3"]) await c.db.upsertUserMemory({ memory_id: id, user_id: "dora", memory: id });
      const after = await c.db.replaceUserMemories(
        "dora",
        ["u1", "u2", "b1", "never-was"],
        [{ memory_id: "u9", user_id: "dora", memory: "u1 and u2" }],
      );
      expect(ids(after)).toEqual(["u9"]);
      expect(ids(await c.db.getUserMemories("dora")).sort()).toEqual(["u3", "u9"]);
      expect(await c.db.getUserMemory("b1", { userId: "ben" })).not.toBeNull();
      // An id of the user's memories that was not named is still taken: nothing is written.
      await expect(
        c.db.replaceUserMemories("dora", ["u9"], [{ memory_id: "u3", user_id: "dora", memory: "clobbers u3" }]),
      ).rejects.toThrow(ConflictError);
      expect((await c.db.getUserMemory("u3"))!.memory).toBe("u3");
      expect(ids(await c.db.getUserMemories("dora")).sort()).toEqual(["u3", "u9"]);
      expect(await c.db.replaceUserMemories("dora", [], [])).toEqual([]);
      expect(ids(await c.db.getUserMemories("dora")).sort()).toEqual(["u3", "u9"]);
      await c.db.replaceUserMemories("dora", "all", []);
    });

    it("lets a replacing memory keep the id of one it replaces", async () => {
      await c.db.upsertUserMemory({ memory_id: "k1", user_id: "eve", memory: "Eve likes tea" });
      await c.db.upsertUserMemory({ memory_id: "k2", user_id: "eve", memory: "Eve likes green tea" });
      const after = await c.db.replaceUserMemories(
        "eve",
        ["k1", "k2"],
        [{ memory_id: "k1", user_id: "eve", memory: "Eve likes tea, green above all" }],
      );
      expect(after).toMatchObject([{ memory_id: "k1", memory: "Eve likes tea, green above all" }]);
      expect((await c.db.getUserMemories("eve")).map((m) => [m.memory_id, m.memory])).toEqual([
        ["k1", "Eve likes tea, green above all"],
      ]);
      await c.db.replaceUserMemories("eve", "all", []);
    });

    it("reads a memory stored as an object (agno v1-migrated) by its inner text, and searches that text", async () => {
      await c.putStoredMemory({ memory_id: "v1a", user_id: "finn", memory: { memory: "Finn rows boats" } });
      await c.putStoredMemory({ memory_id: "v1b", user_id: "finn", memory: { note: "no memory field" } });
      expect((await c.db.getUserMemory("v1a"))!.memory).toBe("Finn rows boats");
      expect(JSON.parse((await c.db.getUserMemory("v1b"))!.memory)).toEqual({ note: "no memory field" });
      const listed = await c.db.listUserMemories({ userId: "finn", sortBy: "memory_id", sortOrder: "asc" });
      expect(listed.data.map((m) => m.memory)[0]).toBe("Finn rows boats");
      expect((await c.db.getUserMemories("finn")).find((m) => m.memory_id === "v1a")!.memory).toBe("Finn rows boats");
      // The text is searched, not the JSON around it.
      expect(ids((await c.db.listUserMemories({ userId: "finn", searchContent: "rows boats" })).data)).toEqual(["v1a"]);
      expect((await c.db.listUserMemories({ userId: "finn", searchContent: '"memory"' })).total_count).toBe(0);
      expect((await c.db.listUserMemories({ userId: "finn", searchContent: "{" })).total_count).toBe(1);
      await c.db.replaceUserMemories("finn", "all", []);
    });

    it("stores a session's summary, for its owner only", async () => {
      await c.db.upsertSession({ session_id: "sum-s", session_type: "agent", agent_id: "a", user_id: "ann" });
      const summary = { summary: "Ann asked about tea", topics: ["tea"], updated_at: "2026-01-01T00:00:00" };
      await expect(c.db.setSessionSummary("sum-s", summary, { userId: "ben" })).rejects.toThrow(NotFoundError);
      await c.db.setSessionSummary("sum-s", summary, { userId: "ann" });
      const s = await c.db.getSession("sum-s");
      expect(s!.record.summary).toEqual(summary);
      expect(s!.record.user_id).toBe("ann");
      await expect(c.db.setSessionSummary("no-such", summary)).rejects.toThrow(NotFoundError);
    });
  });
}
