import { describe, expect, it } from "vitest";
import type { ServiceAccountRecord } from "../../src/db/port.js";
import { ConflictError, ValidationError } from "../../src/errors.js";
import type { ContractDb } from "./db-contract.js";

const hashOf = (n: number) => n.toString(16).padStart(64, "0");
let counter = 0;
/** A new account row with a name, hash and id no other test uses. */
function account(extra: Partial<ServiceAccountRecord> = {}): ServiceAccountRecord {
  const n = ++counter + Math.floor(Math.random() * 1e9) * 1000;
  return {
    id: `sa-${n}`,
    name: `bot-${n}`,
    user_id: "ua",
    token_hash: hashOf(n),
    token_prefix: "agno_pat_abcdefg",
    scopes: ["agents:run", "sessions:read"],
    created_at: 1_700_000_000 + counter,
    expires_at: null,
    last_used_at: null,
    revoked_at: null,
    created_by: "ua",
    ...extra,
  };
}

/**
 * Service accounts and the audit trail (issue 22), part of the Db contract: `c()` is the suite's
 * shared database. Every adapter stores an account with its audit row in one step, keeps one
 * active account per name, revokes once, and lists the trail newest first, paginated.
 */
export function describeAccountsAuditContract(c: () => ContractDb): void {
  describe("service accounts and the audit trail", () => {
    it("stores an account with its create row; finds it by hash; one active per name until it is revoked", async () => {
      const db = c().db;
      const a = account();
      expect(await db.serviceAccounts.create(a, "root")).toEqual(a);
      expect(await db.serviceAccounts.byTokenHash(a.token_hash)).toEqual(a);
      expect(await db.serviceAccounts.byTokenHash(hashOf(0))).toBeNull();
      await expect(db.serviceAccounts.create(account({ name: a.name }), "root")).rejects.toBeInstanceOf(ConflictError);
      const created = await db.audit.list({ resourceId: a.id });
      expect(created.data).toEqual([
        {
          id: expect.any(String),
          principal: "root",
          action: "create",
          resource_type: "service_account",
          resource_id: a.id,
          before_version: null,
          after_version: "active",
          details: { name: a.name, scopes: a.scopes, expires_at: null },
          created_at: expect.any(Number),
        },
      ]);

      const revoked = await db.serviceAccounts.revoke(a.id, 1_800_000_000, "root");
      expect(revoked).toMatchObject({ id: a.id, revoked_at: 1_800_000_000 });
      // Once: a second revoke keeps the first time and writes no second row.
      expect(await db.serviceAccounts.revoke(a.id, 1_900_000_000, "root")).toMatchObject({ revoked_at: 1_800_000_000 });
      expect(await db.serviceAccounts.revoke("no-such-account", 1, "root")).toBeNull();
      const rows = (await db.audit.list({ resourceId: a.id })).data;
      expect(rows.map((r) => [r.action, r.before_version, r.after_version])).toEqual([
        ["revoke", "active", "revoked"],
        ["create", null, "active"],
      ]);
      // The name is free again (rotation).
      const again = account({ name: a.name });
      expect(await db.serviceAccounts.create(again, "root")).toEqual(again);
    });

    it("a refused create writes no audit row (all or nothing)", async () => {
      const db = c().db;
      const a = account();
      await db.serviceAccounts.create(a, "root");
      const clash = account({ name: a.name });
      await expect(db.serviceAccounts.create(clash, "root")).rejects.toBeInstanceOf(ConflictError);
      expect((await db.audit.list({ resourceId: clash.id })).total_count).toBe(0);
      expect(await db.serviceAccounts.get(clash.id)).toBeNull();
    });

    it("scopes reads to the owner and the workspace-level accounts; lists sort, filter revoked and paginate", async () => {
      const db = c().db;
      const owner = `owner-${++counter}`;
      const mine = [1, 2, 3].map((i) => account({ user_id: owner, created_at: 1_600_000_000 + i }));
      for (const a of mine) await db.serviceAccounts.create(a, owner);
      const theirs = account({ user_id: `other-${counter}` });
      await db.serviceAccounts.create(theirs, "x");
      await db.serviceAccounts.revoke(mine[0]!.id, 1_700_000_000, owner);

      expect(await db.serviceAccounts.get(theirs.id, { userId: owner })).toBeNull();
      expect((await db.serviceAccounts.get(mine[1]!.id, { userId: owner }))!.id).toBe(mine[1]!.id);
      const own = (p: { data: ServiceAccountRecord[] }) => p.data.filter((a) => a.user_id === owner).map((a) => a.id);
      const all = await db.serviceAccounts.list({ limit: 1000 }, { userId: owner });
      expect(all.data.every((a) => a.user_id === owner || a.user_id === null)).toBe(true);
      expect(own(all)).toEqual([mine[2]!.id, mine[1]!.id, mine[0]!.id]);
      const active = await db.serviceAccounts.list(
        { limit: 1000, includeRevoked: false, sortOrder: "asc" },
        { userId: owner },
      );
      expect(own(active)).toEqual([mine[1]!.id, mine[2]!.id]);
      // An unknown sort column sorts by created_at, as agno clamps it.
      const clamped = await db.serviceAccounts.list(
        { limit: 1000, sortBy: "token_hash; DROP", sortOrder: "asc" },
        { userId: owner },
      );
      expect(own(clamped)).toEqual([mine[0]!.id, mine[1]!.id, mine[2]!.id]);
      const page = await db.serviceAccounts.list({ limit: 1, page: 2, sortOrder: "asc" }, { userId: owner });
      expect(page).toMatchObject({ page: 2, limit: 1, total_count: all.total_count });
      await expect(db.serviceAccounts.list({ page: 2 })).rejects.toBeInstanceOf(ValidationError);
    });

    it("records a use at most once a minute", async () => {
      const db = c().db;
      const a = account();
      await db.serviceAccounts.create(a, "root");
      await db.serviceAccounts.touch(a.id, 2_000_000_000);
      await db.serviceAccounts.touch(a.id, 2_000_000_030);
      expect((await db.serviceAccounts.get(a.id))!.last_used_at).toBe(2_000_000_000);
      await db.serviceAccounts.touch(a.id, 2_000_000_060);
      expect((await db.serviceAccounts.get(a.id))!.last_used_at).toBe(2_000_000_060);
    });

    it("refuses an account that is not well formed (422), and stores nothing", async () => {
      const db = c().db;
      for (const bad of [
        account({ name: "Not A Slug" }),
        account({ token_hash: "plaintext-key" }),
        account({ scopes: [""] }),
        account({ id: "bad\u0000id" }),
      ]) {
        await expect(db.serviceAccounts.create(bad, "root")).rejects.toBeInstanceOf(ValidationError);
        expect(await db.serviceAccounts.byTokenHash(bad.token_hash)).toBeNull();
      }
    });

    it("appends audit rows with their versions and details; lists newest first, by resource, type or principal, paginated", async () => {
      const db = c().db;
      const id = `res-${++counter}`;
      const principal = `auditor-${counter}`;
      const first = await db.audit.record({
        principal,
        action: "create",
        resource_type: "schedule",
        resource_id: id,
        before_version: null,
        after_version: "1",
        details: { name: "nightly", text: "a\u0000b" },
      });
      expect(first).toMatchObject({
        id: expect.any(String),
        created_at: expect.any(Number),
        details: { name: "nightly" },
      });
      for (const [action, before, after] of [
        ["update", "1", "2"],
        ["delete", "2", null],
      ] as const)
        await db.audit.record({
          principal,
          action,
          resource_type: "schedule",
          resource_id: id,
          before_version: before,
          after_version: after,
        });
      const rows = await db.audit.list({ resourceId: id });
      expect(rows.data.map((r) => [r.action, r.before_version, r.after_version, r.details])).toEqual([
        ["delete", "2", null, null],
        ["update", "1", "2", null],
        ["create", null, "1", { name: "nightly", text: "a\uFFFDb" }],
      ]);
      expect((await db.audit.list({ principal, limit: 2, page: 2 })).data.map((r) => r.action)).toEqual(["create"]);
      expect((await db.audit.list({ principal, limit: 2 })).total_count).toBe(3);
      expect((await db.audit.list({ principal, resourceType: "database" })).total_count).toBe(0);
      await expect(
        db.audit.record({
          principal,
          action: "",
          resource_type: "x",
          resource_id: "y",
          before_version: null,
          after_version: null,
        }),
      ).rejects.toBeInstanceOf(ValidationError);
    });
  });
}
