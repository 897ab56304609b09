import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../src/db/port.js";
import { ConflictError, ValidationError } from "../../src/errors.js";
import { dbTargets, openTestDb, testStores } from "../support/db-targets.js";

/** The learning store's contract (agno_learnings), on MemoryDb, PGlite and every configured PostgreSQL. */
describe.each(testStores({ everyPostgres: true }))("learning store on %s", (_name, open) => {
  let t: { db: Db; close(): Promise<void> };
  let db: Db;
  beforeAll(async () => {
    t = open();
    db = t.db;
    await db.init();
  });
  afterAll(() => t.close());

  it("upserts a row with its identity columns, replaces content and metadata on the same id, keeps identity and created_at", async () => {
    const first = await db.upsertLearning({
      learning_id: "user_profile_ann",
      learning_type: "user_profile",
      user_id: "ann",
      agent_id: "a1",
      content: { user_id: "ann", name: "Ann" },
    });
    expect(first).toMatchObject({
      learning_id: "user_profile_ann",
      learning_type: "user_profile",
      namespace: null,
      user_id: "ann",
      agent_id: "a1",
      team_id: null,
      workflow_id: null,
      session_id: null,
      entity_id: null,
      entity_type: null,
      content: { user_id: "ann", name: "Ann" },
      metadata: null,
    });
    expect(first.created_at).toBeGreaterThan(0);
    const second = await db.upsertLearning({
      learning_id: "user_profile_ann",
      learning_type: "user_profile",
      user_id: "ann",
      agent_id: "other-agent",
      content: { user_id: "ann", name: "Annie" },
      metadata: { source: "test" },
    });
    expect(second).toMatchObject({ agent_id: "a1", content: { name: "Annie" }, metadata: { source: "test" } });
    expect(second.created_at).toBe(first.created_at);
    expect(await db.getLearning("user_profile_ann")).toEqual(second);
  });

  it("refuses a write under an id another owner holds, and create refuses any existing id", async () => {
    await db.upsertLearning({ learning_id: "shared-x", learning_type: "t", user_id: "bob", content: { v: 1 } });
    await expect(
      db.upsertLearning({ learning_id: "shared-x", learning_type: "t", user_id: "eve", content: { v: 2 } }),
    ).rejects.toThrow(ConflictError);
    await expect(
      db.upsertLearning({ learning_id: "shared-x", learning_type: "t", user_id: null, content: { v: 2 } }),
    ).rejects.toThrow(ConflictError);
    await expect(
      db.createLearning({ learning_id: "shared-x", learning_type: "t", user_id: "bob", content: { v: 3 } }),
    ).rejects.toThrow(ConflictError);
    expect((await db.getLearning("shared-x"))!.content).toEqual({ v: 1 });
    const created = await db.createLearning({ learning_id: "fresh", learning_type: "t", content: { v: 1 } });
    expect(created.user_id).toBeNull();
  });

  it("update changes content and metadata of an existing row only; delete says whether it deleted", async () => {
    await db.upsertLearning({ learning_id: "u1", learning_type: "t", user_id: "cy", content: { a: 1 } });
    const updated = await db.updateLearning("u1", { content: { a: 2 }, metadata: { m: true } });
    expect(updated).toMatchObject({ content: { a: 2 }, metadata: { m: true }, user_id: "cy" });
    expect(await db.updateLearning("missing", { content: {}, metadata: null })).toBeNull();
    expect(await db.getLearning("missing")).toBeNull();
    expect(await db.deleteLearning("u1")).toBe(true);
    expect(await db.deleteLearning("u1")).toBe(false);
    expect(await db.getLearning("u1")).toBeNull();
  });

  it("refuses bad input with a ValidationError naming the field", async () => {
    await expect(db.upsertLearning({ learning_id: "", learning_type: "t", content: {} })).rejects.toThrow(
      ValidationError,
    );
    await expect(db.upsertLearning({ learning_id: "x\u0000", learning_type: "t", content: {} })).rejects.toThrow(
      /learning_id/,
    );
    await expect(
      db.upsertLearning({ learning_id: "ok", learning_type: "t", content: [] as unknown as Record<string, unknown> }),
    ).rejects.toThrow(/content/);
    await expect(db.getLearning("a".repeat(300))).rejects.toThrow(ValidationError);
    await expect(db.listLearnings({ limit: 0 })).rejects.toThrow(ValidationError);
  });

  describe("listing", () => {
    beforeAll(async () => {
      for (const [id, user, type, ns] of [
        ["l-a1", "la", "user_memory", null],
        ["l-a2", "la", "entity_memory", "user"],
        ["l-b1", "lb", "user_memory", null],
        ["l-g1", null, "entity_memory", "global"],
      ] as const) {
        await db.upsertLearning({
          learning_id: id,
          learning_type: type,
          user_id: user,
          namespace: ns,
          agent_id: "list-agent",
          content: { id },
        });
      }
    });

    const ids = (p: { data: Array<{ learning_id: string }> }) => p.data.map((r) => r.learning_id).sort();

    it("filters by owner, with or without the shared rows, and by the identity columns", async () => {
      expect(ids(await db.listLearnings({ agentId: "list-agent", userId: "la" }))).toEqual(["l-a1", "l-a2"]);
      expect(ids(await db.listLearnings({ agentId: "list-agent", userId: "la", includeShared: true }))).toEqual([
        "l-a1",
        "l-a2",
        "l-g1",
      ]);
      expect(ids(await db.listLearnings({ agentId: "list-agent", learningType: "user_memory" }))).toEqual([
        "l-a1",
        "l-b1",
      ]);
      expect(ids(await db.listLearnings({ agentId: "list-agent", namespace: "global" }))).toEqual(["l-g1"]);
    });

    it("pages with a total and sorts by a known column (an unknown one sorts by updated_at)", async () => {
      const page = await db.listLearnings({
        agentId: "list-agent",
        limit: 3,
        page: 1,
        sortBy: "learning_id",
        sortOrder: "asc",
      });
      expect(page.data.map((r) => r.learning_id)).toEqual(["l-a1", "l-a2", "l-b1"]);
      expect(page).toMatchObject({ page: 1, limit: 3, total_count: 4, total_pages: 2 });
      const next = await db.listLearnings({
        agentId: "list-agent",
        limit: 3,
        page: 2,
        sortBy: "learning_id",
        sortOrder: "asc",
      });
      expect(next.data.map((r) => r.learning_id)).toEqual(["l-g1"]);
      const past = await db.listLearnings({ agentId: "list-agent", limit: 3, page: 5 });
      expect(past).toMatchObject({ data: [], total_count: 4 });
      const desc = await db.listLearnings({ agentId: "list-agent", sortBy: "learning_id; DROP", sortOrder: "desc" });
      expect(desc.total_count).toBe(4);
    });

    it("lists the owners with their latest update, leaving out rows without one", async () => {
      const users = await db.learningUsers({ sortBy: "user_id", sortOrder: "asc", limit: 1000 });
      const mine = users.data.filter((u) => u.user_id === "la" || u.user_id === "lb");
      expect(mine.map((u) => u.user_id)).toEqual(["la", "lb"]);
      expect(mine[0]!.last_learning_updated_at).toBeGreaterThan(0);
      expect(users.data.some((u) => u.user_id === null)).toBe(false);
      const one = await db.learningUsers({ userId: "la" });
      expect(one).toMatchObject({ total_count: 1, limit: 20, data: [{ user_id: "la" }] });
      expect((await db.learningUsers({ userId: "la", learningType: "decision_log" })).data).toEqual([]);
    });

    it("deletes a user's rows (of one type when asked), never the shared ones", async () => {
      expect(await db.deleteUserLearnings("la", { learningType: "entity_memory" })).toBe(1);
      expect(ids(await db.listLearnings({ agentId: "list-agent", userId: "la" }))).toEqual(["l-a1"]);
      expect(await db.deleteUserLearnings("la")).toBe(1);
      expect(await db.deleteUserLearnings("la")).toBe(0);
      expect(ids(await db.listLearnings({ agentId: "list-agent" }))).toEqual(["l-b1", "l-g1"]);
    });
  });
});

/** What only Postgres has to say: agno's table and indexes, under an overridable name. */
describe.each(dbTargets())("agno_learnings on $name", (target) => {
  it("is agno's LEARNINGS_TABLE_SCHEMA, indexed as agno indexes it, and its name is overridable", async () => {
    const t = openTestDb(target, { tables: { learnings: "team_learnings" } });
    try {
      await t.db.init();
      await t.db.upsertLearning({ learning_id: "x", learning_type: "decision_log", content: { decision: "d" } });
      const cols = await t.query<{ column_name: string; data_type: string; is_nullable: string }>(
        `SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'team_learnings' ORDER BY column_name`,
        [t.schema],
      );
      expect(cols.map((c) => `${c.column_name}:${c.data_type}:${c.is_nullable}`)).toEqual([
        "agent_id:character varying:YES",
        "content:jsonb:NO",
        "created_at:bigint:NO",
        "entity_id:character varying:YES",
        "entity_type:character varying:YES",
        "learning_id:character varying:NO",
        "learning_type:character varying:NO",
        "metadata:jsonb:YES",
        "namespace:character varying:YES",
        "session_id:character varying:YES",
        "team_id:character varying:YES",
        "updated_at:bigint:YES",
        "user_id:character varying:YES",
        "workflow_id:character varying:YES",
      ]);
      expect(await t.query(`SELECT learning_id FROM "${t.schema}".team_learnings`)).toEqual([{ learning_id: "x" }]);
      expect(await t.query(`SELECT to_regclass('"${t.schema}".agno_learnings') AS t`)).toEqual([{ t: null }]);
      const indexes = await t.query<{ indexname: string }>(
        `SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND tablename = 'team_learnings' ORDER BY 1`,
        [t.schema],
      );
      expect(indexes.map((i) => i.indexname)).toContain("idx_team_learnings_user_id");
      expect(indexes).toHaveLength(11); // the primary key and agno's ten indexed columns
    } finally {
      await t.close();
    }
  });
});
