import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { scriptModel } from "../../../support/model-script.js";
import { until } from "../../../support/until.js";
import { call, JSON_BODY } from "../../worker-client.js";
import { conformingCall } from "../check.js";

const json = (method: string, body: unknown): RequestInit => ({
  method,
  headers: JSON_BODY,
  body: JSON.stringify(body),
});
const runOf = (id: string) => call(`/agents/assistant/runs/${id}`).then((r) => r.body);

/**
 * `/approvals`: a background run pauses on the assistant's `forget_notes` (an approver's tool),
 * its approval is listed, counted and read; resolving it continues the run on the queue to
 * COMPLETED with nobody connected; a second decision is 409; the record is deleted.
 */
export function approvalsScenarios(): void {
  it("a paused run's approval: listed, counted, read, resolved into the run's completion, then deleted", async () => {
    // The queue object runs both halves of the run with its own model: the "queue" channel.
    await scriptModel(
      env.MODEL_SERVER_URL,
      [{ toolCalls: [{ name: "forget_notes", arguments: {} }] }, { text: "Your notes are forgotten." }],
      { channel: "queue" },
    );
    const accepted = await call(
      "/agents/assistant/runs",
      json("POST", { message: "forget my notes", background: true, stream: false }),
    );
    expect(accepted.status).toBe(202);
    const runId = accepted.body.run_id as string;
    await until(
      () => runOf(runId),
      (r) => r?.status === "PAUSED",
      "the run to pause",
      { ms: 30_000, every: 200 },
    );

    const listed = await conformingCall(`/approvals?run_id=${runId}&status=pending`);
    expect(listed.body.meta).toMatchObject({ page: 1, limit: 100, total_count: 1 });
    const approval = listed.body.data[0];
    expect(approval).toMatchObject({
      run_id: runId,
      status: "pending",
      source_type: "agent",
      approval_type: "required",
      pause_type: "confirmation",
      tool_name: "forget_notes",
      agent_id: "assistant",
      run_status: "PAUSED",
      expires_at: expect.any(Number),
    });
    expect((await conformingCall("/approvals/count")).body.count).toBeGreaterThanOrEqual(1);
    expect((await conformingCall(`/approvals/${approval.id}`)).body).toEqual(approval);
    expect((await conformingCall(`/approvals/${approval.id}/status`)).body).toEqual({
      approval_id: approval.id,
      status: "pending",
      run_id: runId,
      resolved_at: null,
      resolved_by: null,
    });
    expect((await conformingCall("/approvals/no-such-approval")).status).toBe(404);

    const resolved = await conformingCall(
      `/approvals/${approval.id}/resolve`,
      json("POST", { status: "approved", reason: "the user asked" }),
    );
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({
      status: "approved",
      resolution_data: { reason: "the user asked" },
      resolved_at: expect.any(Number),
    });
    const again = await conformingCall(`/approvals/${approval.id}/resolve`, json("POST", { status: "rejected" }));
    expect(again.status).toBe(409);
    const done = await until(
      () => runOf(runId),
      (r) => r?.status === "COMPLETED",
      "the run to complete",
      {
        ms: 30_000,
        every: 200,
      },
    );
    expect(done.content).toBe("Your notes are forgotten.");
    expect(done.tools[0]).toMatchObject({ tool_name: "forget_notes", result: "forgot 0 notes" });
    expect((await conformingCall(`/approvals/${approval.id}`)).body).toMatchObject({ run_status: "COMPLETED" });

    expect((await conformingCall(`/approvals/${approval.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await conformingCall(`/approvals/${approval.id}`)).status).toBe(404);
  }, 90_000);
}
