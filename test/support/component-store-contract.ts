import { describe, expect, it } from "vitest";
import {
  BadRequestError,
  ComponentArchivedError,
  ComponentDependencyError,
  ComponentDraftRequiredError,
  ComponentVersionConflictError,
  NotFoundError,
} from "../../src/errors.js";
import type { ContractDb } from "./db-contract.js";

const agent = (id: string, extra: Record<string, unknown> = {}) => ({
  component_id: id,
  component_type: "agent" as const,
  name: id,
  user_id: "alice",
  config: { name: id, model: "openai:gpt-4o-mini", instructions: "be brief" },
  ...extra,
});

/**
 * The component catalog's contract (agno's components, component_configs, component_links), part
 * of the Db contract: `c()` is the suite's shared database.
 */
export function describeComponentStoreContract(c: () => ContractDb): void {
  describe("components", () => {
    it("creates a component with its first draft; reads are scoped and never write", async () => {
      const db = c().db.components;
      const { component, config } = await db.createComponentWithConfig(agent("c-read"));
      expect(component).toMatchObject({ component_id: "c-read", component_type: "agent", current_version: null });
      expect(config).toMatchObject({ version: 1, stage: "draft" });
      // A draft-only component is its owner's alone.
      expect(await db.getComponent("c-read", { userId: "bob" })).toBeNull();
      expect(await db.getComponent("c-read", { userId: "alice" })).toMatchObject({ user_id: "alice" });
      expect(await db.getConfig("c-read")).toBeNull();
      expect(await db.getComponent("c-absent")).toBeNull();
      expect(await db.getComponent("c-absent")).toBeNull();
      await expect(db.createComponentWithConfig(agent("c-read"))).rejects.toThrow(BadRequestError);
      await expect(db.createComponentWithConfig(agent("bad/id"))).rejects.toThrow(/must not contain/);
      await expect(db.createComponentWithConfig(agent("c-bad-stage", { stage: "live" }))).rejects.toThrow(
        /Invalid stage/,
      );
      expect(await db.getComponent("c-bad-stage")).toBeNull();
    });

    it("drafts are editable, published versions immutable, and only a published version becomes current", async () => {
      const db = c().db.components;
      await db.createComponentWithConfig(agent("c-pub"));
      const edited = await db.updateConfig("c-pub", 1, { config: { name: "Pub", instructions: "v1 edited" } });
      expect(edited.config).toEqual({ name: "Pub", instructions: "v1 edited" });
      await expect(db.setCurrentVersion("c-pub", 1)).rejects.toThrow(/Only published configs can be current/);
      await db.updateConfig("c-pub", 1, { stage: "published" });
      expect(await db.getComponent("c-pub")).toMatchObject({ current_version: 1, name: "Pub" });
      await expect(db.updateConfig("c-pub", 1, { notes: "x" })).rejects.toThrow(ComponentDraftRequiredError);
      await expect(db.deleteConfig("c-pub", 1)).rejects.toThrow(ComponentDraftRequiredError);
      // Visible to everyone once published.
      expect(await db.getComponent("c-pub", { userId: "bob" })).not.toBeNull();
      const v2 = await db.createConfig("c-pub", { config: { instructions: "v2" } }, { userId: "alice" });
      expect(v2).toMatchObject({ version: 2, stage: "draft" });
      expect((await db.getConfig("c-pub"))!.version).toBe(1);
      // Another owner's component answers as absent to a write.
      await expect(db.createConfig("c-pub", { config: {} }, { userId: "bob" })).rejects.toThrow(NotFoundError);
      expect((await db.listConfigs("c-pub")).map((v) => v.version)).toEqual([2, 1]);
    });

    it("never reuses a version number, even after the version is tombstoned", async () => {
      const db = c().db.components;
      await db.createComponentWithConfig(agent("c-tomb"));
      await db.createConfig("c-tomb", { config: { v: 2 } });
      expect(await db.deleteConfig("c-tomb", 2)).toBe(true);
      expect(await db.getConfig("c-tomb", 2)).toBeNull();
      expect(await db.deleteConfig("c-tomb", 2)).toBe(false);
      expect((await db.createConfig("c-tomb", { config: { v: 3 } })).version).toBe(3);
      await db.deleteConfig("c-tomb", 3);
      await expect(db.deleteConfig("c-tomb", 1)).rejects.toThrow(ComponentDependencyError);
      expect((await db.listConfigs("c-tomb")).map((v) => v.version)).toEqual([1]);
    });

    it("archiving keeps the id reserved, disables the schedules aimed at it together, and restores", async () => {
      const d = c().db;
      await d.components.createComponentWithConfig(agent("c-arch", { stage: "published" }));
      const s = await d.schedules.createSchedule(
        { name: "c-arch-daily", endpoint: "/agents/c-arch/runs", cron_expr: "0 8 * * *", payload: { message: "hi" } },
        { userId: "alice" },
      );
      const other = await d.schedules.createSchedule(
        { name: "c-arch-other", endpoint: "/agents/c-other/runs", cron_expr: "0 8 * * *", payload: { message: "hi" } },
        { userId: "alice" },
      );
      expect(await d.components.deleteComponent("c-arch", { userId: "bob" })).toEqual({
        archived: false,
        schedulesDisabled: 0,
      });
      expect(await d.components.deleteComponent("c-arch", { userId: "alice" })).toEqual({
        archived: true,
        schedulesDisabled: 1,
      });
      expect(await d.schedules.getSchedule(s.id, { userId: "alice" })).toMatchObject({
        enabled: false,
        disabled_reason: "target_archived:agent:c-arch",
      });
      expect((await d.schedules.getSchedule(other.id, { userId: "alice" }))!.enabled).toBe(true);
      expect(await d.components.getComponent("c-arch")).toBeNull();
      expect(await d.components.getComponent("c-arch", { includeDeleted: true })).toMatchObject({
        deleted_at: expect.any(Number),
      });
      // Archived: withdrawn from other users, id reserved, rows immutable.
      expect(await d.components.getComponent("c-arch", { userId: "bob", includeDeleted: true })).toBeNull();
      await expect(d.components.createComponentWithConfig(agent("c-arch"))).rejects.toThrow(ComponentArchivedError);
      await expect(d.components.createConfig("c-arch", { config: {} })).rejects.toThrow(ComponentArchivedError);
      expect(await d.components.restoreComponent("c-arch", { userId: "bob" })).toBe(false);
      expect(await d.components.restoreComponent("c-arch", { userId: "alice" })).toBe(true);
      expect(await d.components.getComponent("c-arch")).toMatchObject({ deleted_at: null, current_version: 1 });
      expect(await d.components.restoreComponent("c-arch")).toBe(false);
    });

    it("records links, refuses deleting a component a live one links to, and refuses cycles", async () => {
      const db = c().db.components;
      await db.createComponentWithConfig(agent("c-member", { stage: "published" }));
      await expect(
        db.createComponentWithConfig({
          component_id: "c-team-draftpin",
          component_type: "team",
          name: "t",
          config: {},
          stage: "published",
          links: [
            {
              link_kind: "member",
              link_key: "member_0",
              child_component_id: "c-absent",
              child_version: 1,
              position: 0,
            },
          ],
        }),
      ).rejects.toThrow(/not found/);
      const link = {
        link_kind: "member",
        link_key: "member_0",
        child_component_id: "c-member",
        child_version: 1,
        position: 0,
      };
      await db.createComponentWithConfig({
        component_id: "c-team",
        component_type: "team",
        name: "team",
        config: { members: [{ type: "agent", agent_id: "c-member" }] },
        stage: "published",
        links: [link],
      });
      expect(await db.getLinks("c-team", 1)).toEqual([
        { ...link, parent_component_id: "c-team", parent_version: 1, meta: null },
      ]);
      expect((await db.getDependents("c-member")).map((l) => l.parent_component_id)).toEqual(["c-team"]);
      await expect(db.deleteComponent("c-member")).rejects.toThrow(/referenced by c-team/);
      expect(await db.getComponent("c-member")).not.toBeNull();
      // c-member (as a team) linking back to c-team closes a cycle.
      await db.createComponentWithConfig({ component_id: "c-team2", component_type: "team", name: "t2", config: {} });
      await expect(
        db.createConfig("c-member", {
          config: {},
          links: [{ ...link, child_component_id: "c-team", child_version: 1 }],
        }),
      ).rejects.toThrow(/cycle/);
      // Archiving the parent frees the child.
      await db.deleteComponent("c-team");
      expect((await db.deleteComponent("c-member")).archived).toBe(true);
    });

    it("20 concurrent guarded appends: exactly one wins, 19 get a version conflict, the winner's state stays", async () => {
      const db = c().db.components;
      await db.createComponentWithConfig(agent("c-race"));
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) =>
          db.createConfig("c-race", { config: { writer: i } }, { userId: "alice", expectedLatestVersion: 1 }),
        ),
      );
      const won = results.filter((r) => r.status === "fulfilled");
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(19);
      for (const r of lost) {
        expect(r.reason).toBeInstanceOf(ComponentVersionConflictError);
        expect(r.reason).toMatchObject({ errorId: "version_conflict", status: 409, current: 2 });
      }
      const winner = (won[0] as PromiseFulfilledResult<{ version: number; config: Record<string, unknown> }>).value;
      expect(winner.version).toBe(2);
      expect((await db.listConfigs("c-race")).map((v) => v.version)).toEqual([2, 1]);
      expect((await db.getConfig("c-race", 2))!.config).toEqual(winner.config);
    });

    it("20 concurrent guarded publishes: exactly one moves the current version", async () => {
      const db = c().db.components;
      await db.createComponentWithConfig(agent("c-race-pub", { stage: "published" }));
      for (let i = 0; i < 20; i++) await db.createConfig("c-race-pub", { config: { n: i }, stage: "draft" });
      for (let v = 2; v <= 21; v++) await db.updateConfig("c-race-pub", v, { stage: "published" });
      await db.setCurrentVersion("c-race-pub", 1);
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, (_, i) =>
          db.setCurrentVersion("c-race-pub", i + 2, { userId: "alice", expectedCurrentVersion: 1 }),
        ),
      );
      const won = results.flatMap((r, i) => (r.status === "fulfilled" && r.value ? [i + 2] : []));
      const lost = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(19);
      for (const r of lost) expect(r.reason).toBeInstanceOf(ComponentVersionConflictError);
      expect((await db.getComponent("c-race-pub"))!.current_version).toBe(won[0]);
    });

    it("lists by type, stage and archived, scoped to what the user may see", async () => {
      const db = c().db.components;
      await db.createComponentWithConfig(agent("l-a1", { user_id: "lister" }));
      await db.createComponentWithConfig(agent("l-a2", { user_id: "lister", stage: "published" }));
      await db.createComponentWithConfig({ ...agent("l-t1", { user_id: "lister" }), component_type: "team" });
      await db.createComponentWithConfig(agent("l-x", { user_id: "lister" }));
      await db.deleteComponent("l-x");
      const ids = async (opts: Parameters<typeof db.listComponents>[0]) =>
        (await db.listComponents({ ...opts, limit: 1000 })).data
          .map((r) => r.component_id)
          .filter((id) => id.startsWith("l-"))
          .sort();
      expect(await ids({ userId: "lister" })).toEqual(["l-a1", "l-a2", "l-t1"]);
      expect(await ids({ userId: "lister", componentType: "agent" })).toEqual(["l-a1", "l-a2"]);
      expect(await ids({ userId: "lister", stage: "published" })).toEqual(["l-a2"]);
      expect(await ids({ userId: "lister", stage: "draft" })).toEqual(["l-a1", "l-t1"]);
      expect(await ids({ userId: "lister", includeDeleted: true })).toEqual(["l-a1", "l-a2", "l-t1", "l-x"]);
      expect(await ids({ userId: "someone" })).toEqual(["l-a2"]);
      expect(await ids({ userId: "lister", excludeIds: ["l-a1"] })).toEqual(["l-a2", "l-t1"]);
      const all = (await db.listComponents({ userId: "lister", componentType: "agent", limit: 1000 })).total_count;
      const page = await db.listComponents({ userId: "lister", componentType: "agent", limit: 1, page: 2 });
      expect(page).toMatchObject({ page: 2, limit: 1, total_count: all, total_pages: all });
      expect(page.data).toHaveLength(1);
    });
  });
}
