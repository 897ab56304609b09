import { expect, it } from "vitest";
import { conformingCall } from "../check.js";

/** `/`, `/health`, `/info`, `/config`, `/openapi.json`, `/docs`. */
export function metaScenarios(): void {
  it("GET /health is agno's HealthResponse", async () => {
    const { status, body } = await conformingCall("/health", {}, {}, {});
    expect(status).toBe(200);
    expect(new Date(body.instantiated_at).getTime()).toBeLessThanOrEqual(Date.now());
  });
}
