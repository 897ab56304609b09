import { base64url, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import type { RunOutput } from "../../src/agent/run-output.js";
import type { Db } from "../../src/db/port.js";
import { AgentOS } from "../../src/os/agent-os.js";
import { JwtVerifier } from "../../src/os/auth/jwt.js";
import type { JobRecord, JobStore } from "../../src/queue/types.js";
import { tool } from "../../src/tools/tool.js";
import { memoryTestDb, scriptedModel } from "../support/agent-kit.js";
import { dbTargets, openTestDb } from "../support/db-targets.js";
import { drainQueue } from "../support/drain-queue.js";
import type { Turn } from "../support/model-script.js";

/**
 * Approvals through HTTP (agno 3.0's `/approvals`), on memory and each Postgres: a run pauses on
 * a `requiresApproval` tool, its pending approval is listed, a caller without `approvals:write`
 * is refused, an approver's decision (with a reason) is recorded and continues the run on the
 * durable queue, with no client attached, to COMPLETED: the tool ran (approved) or the model read
 * the refusal (rejected). Then: a second decision is 409, an expired approval cannot be resolved,
 * user isolation scopes reads and makes resolve and delete admin-only.
 */
const secret = crypto.getRandomValues(new Uint8Array(32));
const verifier = new JwtVerifier([{ kty: "oct", k: base64url.encode(secret), kid: "k" }]);
const token = async (sub: string, scopes: string[]) =>
  `Bearer ${await new SignJWT({ scopes }).setProtectedHeader({ alg: "HS256", kid: "k" }).setSubject(sub).setIssuedAt().setExpirationTime("1h").sign(secret)}`;
const REQUESTER = ["agents:read", "agents:run", "approvals:read"];
const APPROVER = ["approvals:read", "approvals:write"];

type QueueDb = Db & { jobs: JobStore & { expireExhaustedJobs(): Promise<JobRecord[]> } };
type Store = [string, () => Promise<{ db: QueueDb; close(): Promise<void>; expire(id: string): Promise<void> }>];

const stores: Store[] = [
  [
    "memory",
    async () => {
      const { db, close } = memoryTestDb();
      return {
        db,
        close,
        expire: async (id) => void db.tables.approvals.set(id, { ...db.tables.approvals.get(id)!, expires_at: 1 }),
      };
    },
  ],
  ...dbTargets().map((target): Store => [
    target.name,
    async () => {
      const t = openTestDb(target);
      return {
        db: t.db,
        close: () => t.close(),
        expire: async (id) =>
          void (await t.query(`UPDATE "${t.schema}".agno_approvals SET expires_at = 1 WHERE id = $1`, [id])),
      };
    },
  ]),
];

async function setup(store: Store[1], turns: Turn[], userIsolation = false) {
  const { db, close, expire } = await store();
  const { model } = await scriptedModel(turns);
  const dropped: string[] = [];
  const dropTable = tool({
    name: "drop_table",
    description: "Drop a table; an approver decides first",
    parameters: z.object({ table: z.string() }),
    requiresApproval: true,
    approvalExpiresIn: 3600,
    execute: ({ table }) => (dropped.push(table), `dropped ${table}`),
  });
  const agent = new Agent({ id: "ops", name: "Ops", model, tools: [dropTable] });
  const os = new AgentOS({ agents: [agent], queue: { durable: true }, auth: { mode: "jwt", verifier, userIsolation } });
  const call = async (
    as: string,
    scopes: string[],
    path: string,
    init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
  ) => {
    const res = await os.fetch(
      new Request(`http://os.test${path}`, {
        method: init.method ?? "GET",
        headers: {
          authorization: await token(as, scopes),
          ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
          ...init.headers,
        },
        ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
      }),
      { dbs: [db], jobs: db.jobs, queue: { wake: async () => undefined } },
    );
    const text = await res.text();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test reads the JSON it asserts on
    return { status: res.status, body: (text ? JSON.parse(text) : null) as any };
  };
  const pause = async (as: string, table: string) => {
    const res = await call(as, REQUESTER, "/agents/ops/runs", {
      method: "POST",
      body: { message: `drop ${table}`, stream: false, user_id: as },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status).toBe("PAUSED");
    return res.body as RunOutput;
  };
  const drain = () => drainQueue(db, { components: [agent] });
  return { db, close, expire, call, pause, drain, dropped };
}

const dropAndAnswer = (table: string, answer: string): Turn[] => [
  { toolCalls: [{ name: "drop_table", arguments: { table } }] },
  { text: answer },
];

describe.each(stores)("approvals on %s", (_name, store) => {
  let env: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    env = await setup(store, [
      ...dropAndAnswer("users", "The users table is gone."),
      ...dropAndAnswer("orders", "I was not allowed to drop orders."),
      ...dropAndAnswer("logs", "unused"),
    ]);
  });
  afterAll(() => env.close());

  it("a paused run's approval is resolved by an approver (a non-approver is refused) and the run completes in the background", async () => {
    const { call, pause, drain, dropped, db } = env;
    const run = await pause("alice", "users");
    expect(run.tools![0]).toMatchObject({
      tool_name: "drop_table",
      approval_type: "required",
      approval_id: expect.any(String),
    });

    const listed = await call("boss", APPROVER, `/approvals?run_id=${run.run_id}`);
    expect(listed.status).toBe(200);
    expect(listed.body.meta).toMatchObject({ page: 1, limit: 100, total_count: 1, total_pages: 1 });
    const approval = listed.body.data[0];
    expect(approval).toMatchObject({
      id: run.tools![0]!.approval_id,
      run_id: run.run_id,
      session_id: run.session_id,
      status: "pending",
      source_type: "agent",
      approval_type: "required",
      pause_type: "confirmation",
      tool_name: "drop_table",
      tool_args: { table: "users" },
      agent_id: "ops",
      user_id: "alice",
      source_name: "Ops",
      context: { tool_names: ["drop_table"], source_name: "Ops" },
      run_status: "PAUSED",
      resolved_by: null,
    });
    expect(approval.expires_at).toBeGreaterThan(approval.created_at);
    expect((await call("boss", APPROVER, "/approvals/count")).body.count).toBeGreaterThanOrEqual(1);
    expect((await call("boss", APPROVER, `/approvals/${approval.id}`)).body).toEqual(approval);

    // The requester holds approvals:read, not approvals:write: refused, and the run stays paused.
    const refused = await call("alice", REQUESTER, `/approvals/${approval.id}/resolve`, {
      method: "POST",
      body: { status: "approved" },
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error_id: "forbidden" });
    // Nor may the requester continue the run around the approval.
    const around = await call("alice", REQUESTER, `/agents/ops/runs/${run.run_id}/continue`, {
      method: "POST",
      body: { requirements: [{ id: run.requirements![0]!.id, confirmed: true }], stream: false },
    });
    expect(around.status).toBe(403);
    expect((await call("boss", APPROVER, `/approvals/${approval.id}/status`)).body).toEqual({
      approval_id: approval.id,
      status: "pending",
      run_id: run.run_id,
      resolved_at: null,
      resolved_by: null,
    });

    const resolved = await call("boss", APPROVER, `/approvals/${approval.id}/resolve`, {
      method: "POST",
      body: { status: "approved", reason: "ticket OPS-7", resolved_by: "someone-else" },
      headers: { traceparent: "00-33f7651916cd43dd8448eb211c80319c-e7ad6b7169203331-01" },
    });
    expect(resolved.status, JSON.stringify(resolved.body)).toBe(200);
    // The continue the approval queued goes on in the approving request's trace.
    const queued = (await db.jobs.listJobs({ limit: 100, page: 1 })).data.find(
      (j) => j.job_type === "run_continue" && j.payload.run_id === run.run_id,
    );
    expect(queued?.payload.traceparent).toBe("00-33f7651916cd43dd8448eb211c80319c-e7ad6b7169203331-01");
    expect(resolved.body).toMatchObject({
      status: "approved",
      resolved_by: "boss",
      resolution_data: { reason: "ticket OPS-7" },
      resolved_at: expect.any(Number),
    });
    const again = await call("boss", APPROVER, `/approvals/${approval.id}/resolve`, {
      method: "POST",
      body: { status: "rejected" },
    });
    expect(again.status).toBe(409);
    expect(again.body.detail).toContain("already 'approved'");
    // The decision is in the audit trail, once, as the approver's (the refused second try is not).
    const audit = await call("admin", ["agent_os:admin"], `/audit?resource_type=approval&resource_id=${approval.id}`);
    expect(audit.body.data).toEqual([
      expect.objectContaining({
        principal: "boss",
        action: "resolve",
        before_version: "pending",
        after_version: "approved",
        details: { run_id: run.run_id, reason: "ticket OPS-7" },
      }),
    ]);

    expect(dropped).toEqual([]);
    await drain();
    const after = await call("alice", REQUESTER, `/agents/ops/runs/${run.run_id}`);
    expect(after.body).toMatchObject({ status: "COMPLETED", content: "The users table is gone." });
    expect(dropped).toEqual(["users"]);
    expect((await call("boss", APPROVER, `/approvals/${approval.id}`)).body).toMatchObject({
      status: "approved",
      run_status: "COMPLETED",
    });
  });

  it("a rejection with a reason: the tool does not run, the model reads why, the run completes", async () => {
    const { call, pause, drain, dropped } = env;
    const run = await pause("alice", "orders");
    const id = run.tools![0]!.approval_id!;
    const res = await call("boss", APPROVER, `/approvals/${id}/resolve`, {
      method: "POST",
      body: { status: "rejected", reason: "orders are audited" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "rejected", resolution_data: { reason: "orders are audited" } });
    await drain();
    const after = (await call("alice", REQUESTER, `/agents/ops/runs/${run.run_id}`)).body as RunOutput;
    expect(after.status).toBe("COMPLETED");
    expect(dropped).not.toContain("orders");
    const answer = after.messages!.find((m) => m.role === "tool");
    expect(String(answer?.content)).toContain("rejected this tool call: orders are audited");
  });

  it("an expired approval reads as expired, is not counted, and cannot be resolved; delete needs approvals:delete", async () => {
    const { call, pause, expire } = env;
    const run = await pause("alice", "logs");
    const id = run.tools![0]!.approval_id!;
    const pending = (await call("boss", APPROVER, "/approvals/count")).body.count as number;
    await expire(id);
    expect((await call("boss", APPROVER, `/approvals/${id}`)).body).toMatchObject({ status: "expired" });
    expect((await call("boss", APPROVER, "/approvals/count")).body.count).toBe(pending - 1);
    expect(
      (await call("boss", APPROVER, "/approvals?status=expired")).body.data.map((a: { id: string }) => a.id),
    ).toEqual([id]);
    const late = await call("boss", APPROVER, `/approvals/${id}/resolve`, {
      method: "POST",
      body: { status: "approved" },
    });
    expect(late.status).toBe(409);
    expect(late.body.detail).toContain("already 'expired'");
    expect((await call("alice", REQUESTER, `/agents/ops/runs/${run.run_id}`)).body.status).toBe("PAUSED");

    expect((await call("boss", APPROVER, `/approvals/${id}`, { method: "DELETE" })).status).toBe(403);
    expect(
      (await call("boss", [...APPROVER, "approvals:delete"], `/approvals/${id}`, { method: "DELETE" })).status,
    ).toBe(204);
    expect((await call("boss", APPROVER, `/approvals/${id}`)).status).toBe(404);
    expect(
      (await call("boss", [...APPROVER, "approvals:delete"], `/approvals/${id}`, { method: "DELETE" })).status,
    ).toBe(404);
  });

  it("bad input is a 4xx before anything is written", async () => {
    const { call } = env;
    const [any] = (await call("boss", APPROVER, "/approvals?limit=1")).body.data;
    const bad = async (path: string, body?: unknown) =>
      (await call("boss", APPROVER, path, body === undefined ? {} : { method: "POST", body })).status;
    expect(await bad("/approvals?limit=0")).toBe(422);
    expect(await bad("/approvals?status=maybe")).toBe(422);
    expect(await bad("/approvals?approval_type=other")).toBe(422);
    expect(await bad(`/approvals/${any.id}/resolve`, { status: "maybe" })).toBe(422);
    expect(await bad(`/approvals/${any.id}/resolve`, { status: "approved", extra: 1 })).toBe(422);
    expect(await bad(`/approvals/${any.id}/resolve`, { status: "approved", reason: "x".repeat(2001) })).toBe(422);
    expect(await bad(`/approvals/no-such-approval/resolve`, { status: "approved" })).toBe(404);
    expect((await call("boss", APPROVER, `/approvals/${any.id}`)).body).toEqual(any);
  });
});

describe.each(stores)("approvals under user isolation on %s", (_name, store) => {
  it("a non-admin reads only the approvals of their own runs; resolve and delete are admin-only (404)", async () => {
    const env = await setup(
      store,
      [
        { toolCalls: [{ name: "drop_table", arguments: { table: "a" } }] },
        { toolCalls: [{ name: "drop_table", arguments: { table: "b" } }] },
        { text: "done a" },
      ],
      true,
    );
    try {
      const { call, pause, drain, dropped } = env;
      const runA = await pause("alice", "a");
      const runB = await pause("bob", "b");
      const idA = runA.tools![0]!.approval_id!;
      const idB = runB.tools![0]!.approval_id!;
      const ids = async (as: string, query = "") =>
        (await call(as, REQUESTER, `/approvals${query}`)).body.data.map((a: { id: string }) => a.id);
      expect(await ids("alice")).toEqual([idA]);
      // Naming another user changes nothing: the caller's own rows.
      expect(await ids("alice", "?user_id=bob")).toEqual([idA]);
      expect((await call("alice", REQUESTER, "/approvals/count?user_id=bob")).body.count).toBe(1);
      expect((await call("alice", REQUESTER, `/approvals/${idB}`)).status).toBe(404);
      expect((await call("alice", REQUESTER, `/approvals/${idB}/status`)).status).toBe(404);
      // An approver scope without admin, under isolation: 404, as agno (the row's user is the requester).
      const asApprover = await call("bob", [...APPROVER, "approvals:delete"], `/approvals/${idA}/resolve`, {
        method: "POST",
        body: { status: "approved" },
      });
      expect(asApprover.status).toBe(404);
      expect(
        (await call("bob", [...APPROVER, "approvals:delete"], `/approvals/${idA}`, { method: "DELETE" })).status,
      ).toBe(404);
      expect((await call("admin", ["agent_os:admin"], `/approvals/${idA}`)).body.status).toBe("pending");

      const byAdmin = await call("admin", ["agent_os:admin"], `/approvals/${idA}/resolve`, {
        method: "POST",
        body: { status: "approved", reason: "fine" },
      });
      expect(byAdmin.status).toBe(200);
      expect(byAdmin.body).toMatchObject({ resolved_by: "admin", user_id: "alice" });
      await drain();
      expect((await call("alice", REQUESTER, `/agents/ops/runs/${runA.run_id}`)).body.status).toBe("COMPLETED");
      expect(dropped).toEqual(["a"]);
      expect((await call("bob", REQUESTER, `/agents/ops/runs/${runB.run_id}`)).body.status).toBe("PAUSED");
    } finally {
      await env.close();
    }
  });
});
