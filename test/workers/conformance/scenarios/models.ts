import { expect, it } from "vitest";
import { conformingCall } from "../check.js";

/** `/models/xai/login`: a SuperGrok sign-in against the fake OAuth server, start to sign-out, each answer checked. */
export function modelsScenarios(): void {
  it("signs in with the device code, reads the session, and signs out", async () => {
    const started = await conformingCall("/models/xai/login", { method: "POST" });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ user_code: expect.any(String), interval: expect.any(Number) });
    const poll = await conformingCall("/models/xai/login/poll", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ login_token: started.body.login_token, interval: 0 }),
    });
    expect(poll.body).toMatchObject({ status: "SUCCESS" });
    expect((await conformingCall("/models/xai/login")).body).toEqual({ signed_in: true });
    expect((await conformingCall("/models/xai/login", { method: "DELETE" })).status).toBe(204);
    expect((await conformingCall("/models/xai/login")).body).toEqual({ signed_in: false });
  });
}
