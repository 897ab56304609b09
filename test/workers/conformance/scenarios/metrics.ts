import { expect, it } from "vitest";
import { JSON_BODY, modelEnv } from "../../worker-client.js";
import { conformingCall } from "../check.js";

/** agno's metrics routes, answered with its DayAggregatedMetrics, MetricsResponse and refresh models. */
export function metricsScenarios(): void {
  it("metrics: a run is counted by a refresh, read by day; a background refresh and its status", async () => {
    const { env: model } = await modelEnv([{ text: "counted" }]);
    const ran = await conformingCall(
      "/agents/assistant/runs",
      { method: "POST", headers: JSON_BODY, body: JSON.stringify({ message: "count me", stream: false }) },
      model,
    );
    expect(ran.status).toBe(200);
    const refreshed = await conformingCall("/metrics/refresh", { method: "POST" });
    expect(refreshed.status).toBe(200);
    expect(Array.isArray(refreshed.body)).toBe(true);
    const today = new Date().toISOString().slice(0, 10);
    const read = await conformingCall(`/metrics?starting_date=${today}&ending_date=${today}`);
    expect(read.status).toBe(200);
    expect(read.body.metrics).toHaveLength(1);
    expect(read.body.metrics[0]).toMatchObject({ id: `${today}_daily`, date: `${today}T00:00:00Z` });
    expect(read.body.metrics[0].agent_runs_count).toBeGreaterThanOrEqual(1);
    expect(read.body.updated_at).toEqual(expect.any(String));

    const started = await conformingCall("/metrics/refresh?background=true", { method: "POST" });
    expect(started).toMatchObject({ status: 202, body: { status: "started" } });
    const status = await conformingCall("/metrics/refresh/status");
    expect(status.body).toMatchObject({ status: "completed", error: null });

    expect((await conformingCall("/metrics?starting_date=2025-02-30")).status).toBe(422);
    expect((await conformingCall("/metrics?starting_date=2025-02-02&ending_date=2025-02-01")).status).toBe(400);
    expect((await conformingCall("/metrics?table=nope")).status).toBe(404);
    expect((await conformingCall("/metrics/refresh?db_id=nope", { method: "POST" })).status).toBe(404);
    expect((await conformingCall("/metrics/refresh/status?table=nope")).status).toBe(404);
  });
}
