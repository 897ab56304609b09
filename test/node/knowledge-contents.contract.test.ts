import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NotFoundError, ValidationError } from "../../src/errors.js";
import type { ContentRecord } from "../../src/knowledge/content.js";
import { testStores } from "../support/db-targets.js";

const row = (id: string, extra: Partial<ContentRecord> = {}): ContentRecord => ({
  id,
  name: id,
  description: "",
  metadata: { k: id },
  type: "text/plain",
  size: 10,
  linked_to: "kb",
  access_count: 0,
  status: "completed",
  status_message: null,
  created_at: 1000,
  updated_at: 1000,
  external_id: null,
  user_id: null,
  ...extra,
});

describe.each(testStores({ everyPostgres: true }))("KnowledgeContentStore on %s", (_name, open) => {
  let store: ReturnType<typeof open>;
  beforeAll(async () => {
    store = open();
    const db = store.db;
    await db.upsertKnowledgeContent(row("s1", { created_at: 1, name: "b" }));
    await db.upsertKnowledgeContent(row("a1", { created_at: 2, name: "c", user_id: "alice" }));
    await db.upsertKnowledgeContent(row("a2", { created_at: 3, name: "a", user_id: "alice" }));
    await db.upsertKnowledgeContent(row("b1", { created_at: 4, name: "d", user_id: "bob" }));
    await db.upsertKnowledgeContent(row("o1", { created_at: 5, linked_to: "other" }));
  });
  afterAll(() => store.close());

  it("stores agno's columns and reads them back", async () => {
    const got = await store.db.getKnowledgeContent("a1");
    expect(got).toEqual(row("a1", { created_at: 2, name: "c", user_id: "alice" }));
  });

  it("a user reads their rows and the shared ones; null shared only; undefined all", async () => {
    expect(await store.db.getKnowledgeContent("a1", { userId: "bob" })).toBeNull();
    expect(await store.db.getKnowledgeContent("s1", { userId: "bob" })).not.toBeNull();
    expect(await store.db.getKnowledgeContent("a1", { userId: null })).toBeNull();
    const list = async (userId: string | null | undefined) =>
      (await store.db.listKnowledgeContents({ limit: 10, page: 1, userId, linkedTo: "kb" })).items.map((r) => r.id);
    expect(await list("alice")).toEqual(["a2", "a1", "s1"]);
    expect(await list(null)).toEqual(["s1"]);
    expect(await list(undefined)).toEqual(["b1", "a2", "a1", "s1"]);
  });

  it("ownOnly lists a user's rows without the shared ones", async () => {
    const own = await store.db.listKnowledgeContents({ limit: 10, page: 1, userId: "alice", ownOnly: true });
    expect(own.items.map((r) => r.id)).toEqual(["a2", "a1"]);
    expect(own.total).toBe(2);
  });

  it("pages and sorts with a total", async () => {
    const page = await store.db.listKnowledgeContents({
      limit: 2,
      page: 2,
      linkedTo: "kb",
      sortBy: "name",
      sortOrder: "asc",
    });
    expect(page).toMatchObject({ total: 4 });
    expect(page.items.map((r) => r.name)).toEqual(["c", "d"]);
    const past = await store.db.listKnowledgeContents({ limit: 2, page: 9, linkedTo: "kb" });
    expect(past).toEqual({ items: [], total: 4 });
    await expect(store.db.listKnowledgeContents({ limit: 0, page: 1 })).rejects.toBeInstanceOf(ValidationError);
    await expect(
      store.db.listKnowledgeContents({ limit: 1, page: 1, sortBy: "size; drop" as "name" }),
    ).rejects.toBeInstanceOf(ValidationError);
  });

  it("a user deletes only their own rows; another's or a shared one is 404", async () => {
    await expect(store.db.deleteKnowledgeContent("a1", { userId: "bob" })).rejects.toBeInstanceOf(NotFoundError);
    await expect(store.db.deleteKnowledgeContent("s1", { userId: "bob" })).rejects.toBeInstanceOf(NotFoundError);
    await store.db.deleteKnowledgeContent("b1", { userId: "bob" });
    expect(await store.db.getKnowledgeContent("b1")).toBeNull();
    expect(await store.db.deleteKnowledgeContents({ linkedTo: "kb", userId: "alice" })).toBe(2);
    expect(await store.db.deleteKnowledgeContents({ linkedTo: "other" })).toBe(1);
    expect((await store.db.listKnowledgeContents({ limit: 10, page: 1 })).items.map((r) => r.id)).toEqual(["s1"]);
  });

  it("refuses bad rows", async () => {
    await expect(store.db.upsertKnowledgeContent(row("x", { status: "done" as "completed" }))).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(store.db.upsertKnowledgeContent(row(""))).rejects.toBeInstanceOf(ValidationError);
  });
});
