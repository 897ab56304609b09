import { describe, expect, it } from "vitest";
import type { RunRecord } from "../../src/db/types.js";
import { ValidationError } from "../../src/errors.js";
import type { ContractDb } from "./db-contract.js";

/**
 * The approvals part of the Db contract: the write that stores a run PAUSED on an approver's
 * requirement creates its pending approval (once, whatever path wrote it), and the store's
 * reads, decisions (compare-and-set), expiry and deletes answer alike on every adapter.
 */
export function describeApprovalStoreContract(get: () => ContractDb): void {
  describe("approvals", () => {
    const db = () => get().db;
    const now = () => Math.floor(Date.now() / 1000);
    let n = 0;
    const requirement = (callId: string, approvalId: string | undefined, extra: Record<string, unknown> = {}) => ({
      id: callId,
      kind: "confirmation",
      requires_admin: approvalId !== undefined,
      created_at: now(),
      resolved: false,
      tool_execution: {
        tool_call_id: callId,
        tool_name: `tool_${callId}`,
        tool_args: { n: 1 },
        created_at: now(),
        requires_confirmation: true,
        ...(approvalId !== undefined ? { approval_id: approvalId, approval_type: "required" } : {}),
      },
      ...extra,
    });
    /** A run of its own session paused on `requirements`, written first RUNNING then PAUSED (expecting RUNNING), as a run ends. */
    const paused = async (requirements: unknown[], extra: Partial<RunRecord> = {}, user = "alice") => {
      const id = `ap-${n++}`;
      await db().upsertSession({ session_id: `${id}-s`, session_type: "agent", agent_id: "ops", user_id: user });
      await db().upsertRun({
        run_id: id,
        session_id: `${id}-s`,
        agent_id: "ops",
        agent_name: "Ops",
        status: "RUNNING",
        messages: [],
        ...extra,
      } as RunRecord);
      await db().upsertRun(
        {
          run_id: id,
          session_id: `${id}-s`,
          agent_id: "ops",
          agent_name: "Ops",
          status: "PAUSED",
          messages: [],
          requirements,
          ...extra,
        } as RunRecord,
        { expectStatus: ["RUNNING"] },
      );
      return id;
    };

    it("a PAUSED write creates one pending approval per approval id, once; other pauses create none", async () => {
      const runId = await paused([
        requirement("c1", "apv-1", { approval_expires_at: now() + 60 }),
        requirement("c2", "apv-1"),
        requirement("c3", undefined),
      ]);
      const a = await db().getApproval("apv-1");
      expect(a).toMatchObject({
        id: "apv-1",
        run_id: runId,
        session_id: `${runId}-s`,
        status: "pending",
        source_type: "agent",
        approval_type: "required",
        pause_type: "confirmation",
        tool_name: "tool_c1",
        tool_args: { n: 1 },
        agent_id: "ops",
        team_id: null,
        user_id: "alice",
        source_name: "Ops",
        context: { tool_names: ["tool_c1", "tool_c2"], source_name: "Ops" },
        resolution_data: null,
        resolved_by: null,
        resolved_at: null,
        run_status: "PAUSED",
      });
      expect(a!.expires_at).toBeGreaterThan(now());
      expect(a!.requirements).toHaveLength(3);
      // The pause written again (a partial resolution keeps it PAUSED) adds nothing and changes nothing.
      const again = {
        run_id: runId,
        session_id: `${runId}-s`,
        agent_id: "ops",
        status: "PAUSED",
        messages: [],
        requirements: [requirement("c1", "apv-1", { resolved: true, confirmed: true }), requirement("c2", "apv-1")],
      };
      await db().upsertRun(again as unknown as RunRecord, { expectStatus: ["PAUSED"] });
      expect((await db().getApprovals({ runId })).total_count).toBe(1);
      expect(await db().getApproval("apv-1")).toEqual(a);

      await paused([requirement("c4", undefined)]);
      await paused([requirement("c5", "apv-member")], { parent_run_id: "team-run" });
      await paused([requirement("c6", "apv-done", { resolved: true })]);
      for (const id of ["apv-member", "apv-done"]) expect(await db().getApproval(id)).toBeNull();
    });

    it("lists newest first with agno's filters and pages, scoped to a requester; counts pending", async () => {
      const runB = await paused([requirement("d1", "apv-b")], {}, "bob");
      await paused([requirement("d2", "apv-b2", { kind: "user_input" })], {}, "bob");
      const bob = await db().getApprovals({ userId: "bob" });
      expect(bob.data.map((a) => a.id).sort()).toEqual(["apv-b", "apv-b2"]);
      expect(bob).toMatchObject({ total_count: 2, page: 1, total_pages: 1 });
      expect((await db().getApprovals({ userId: "bob", pauseType: "user_input" })).data.map((a) => a.id)).toEqual([
        "apv-b2",
      ]);
      expect((await db().getApprovals({ runId: runB })).data.map((a) => a.id)).toEqual(["apv-b"]);
      expect((await db().getApprovals({ agentId: "nobody" })).total_count).toBe(0);
      const page2 = await db().getApprovals({ userId: "bob", limit: 1, page: 2 });
      expect(page2).toMatchObject({ total_count: 2, total_pages: 2, page: 2, limit: 1 });
      expect(page2.data).toHaveLength(1);
      const past = await db().getApprovals({ userId: "bob", limit: 1, page: 5 });
      expect(past).toMatchObject({ data: [], total_count: 2 });
      const created = (await db().getApprovals({})).data.map((a) => a.created_at);
      expect(created).toEqual([...created].sort((x, y) => y - x));
      expect(await db().countPendingApprovals({ userId: "bob" })).toBe(2);
      expect(await db().getApproval("apv-b", { userId: "alice" })).toBeNull();
      expect(await db().getApproval("apv-b", { userId: "bob" })).not.toBeNull();
      await expect(db().getApprovals({ limit: 0 })).rejects.toThrow(ValidationError);
    });

    it("a decision is compare-and-set on pending and unexpired; reopen takes back only that decision", async () => {
      await paused([requirement("e1", "apv-e")]);
      const t = now();
      const decided = await db().resolveApproval("apv-e", {
        status: "rejected",
        resolvedBy: "boss",
        resolutionData: { reason: "no" },
        now: t,
      });
      expect(decided).toMatchObject({
        status: "rejected",
        resolved_by: "boss",
        resolved_at: t,
        resolution_data: { reason: "no" },
        updated_at: t,
      });
      expect(
        await db().resolveApproval("apv-e", { status: "approved", resolvedBy: "x", resolutionData: null, now: t }),
      ).toBeNull();
      expect(await db().reopenApproval("apv-e", t - 1)).toBe(false);
      expect(await db().reopenApproval("apv-e", t)).toBe(true);
      expect(await db().getApproval("apv-e")).toMatchObject({
        status: "pending",
        resolved_by: null,
        resolution_data: null,
      });
      expect(
        await db().resolveApproval("no-such-approval", {
          status: "approved",
          resolvedBy: null,
          resolutionData: null,
          now: t,
        }),
      ).toBeNull();
    });

    it("expiry: a pending approval past expires_at cannot be decided, and the sweep marks it expired", async () => {
      await paused([requirement("f1", "apv-f", { approval_expires_at: now() + 100 })]);
      await paused([requirement("f2", "apv-g", { approval_expires_at: now() + 10_000 })]);
      const late = now() + 200;
      expect(
        await db().resolveApproval("apv-f", { status: "approved", resolvedBy: null, resolutionData: null, now: late }),
      ).toBeNull();
      expect(await db().expireApprovals(late)).toBeGreaterThanOrEqual(1);
      expect((await db().getApproval("apv-f"))!.status).toBe("expired");
      expect((await db().getApproval("apv-g"))!.status).toBe("pending");
      expect(await db().expireApprovals(late)).toBe(0);
    });

    it("run_status is the run's as it stands; deleting an approval leaves its run", async () => {
      const runId = await paused([requirement("h1", "apv-h")]);
      await db().upsertRun(
        { run_id: runId, session_id: `${runId}-s`, agent_id: "ops", status: "COMPLETED", messages: [] } as RunRecord,
        {
          expectStatus: ["PAUSED"],
        },
      );
      expect((await db().getApproval("apv-h"))!.run_status).toBe("COMPLETED");
      expect(await db().deleteApproval("apv-h")).toBe(true);
      expect(await db().deleteApproval("apv-h")).toBe(false);
      expect(await db().getApproval("apv-h")).toBeNull();
      expect((await db().getRun(runId))!.status).toBe("COMPLETED");
      await expect(db().getApproval("a\u0000b")).rejects.toThrow(ValidationError);
    });
  });
}
