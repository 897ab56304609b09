/**
 * `GET /ws` authenticated by its first frame, as a browser must (it cannot set headers on an
 * upgrade): the socket opens without credentials and does nothing until an `authenticate`
 * message (agno's workflow-socket shape) is accepted; refused tokens, then too many or none in
 * time, close it with 4001; once its user is known, the per-user socket cap applies.
 */
import { describe, expect, it } from "vitest";
import { auth, isolatedJwt, modelEnv, upgradeSocket } from "./worker-client.js";
import { openSocket } from "./socket-session.js";

const KEY = auth.authorization.slice("Bearer ".length);

describe("GET /ws with credentials in the first frame", () => {
  it("opens without a header, refuses every action until a valid token arrives, then runs", async () => {
    const { env: e, script } = await modelEnv([{ text: "signed in", chunkSize: 4 }]);
    // A browser's upgrade: an Origin, no Authorization.
    const socket = await openSocket(e, { origin: "http://localhost:3000" });
    const ping = await socket.ask({ action: "ping" });
    expect(ping.first).toMatchObject({
      event: "error",
      error_id: "unauthorized",
      detail: expect.stringMatching(/authenticate/),
    });
    const run = await socket.ask({ action: "run", agent_id: "assistant", message: "hi" });
    expect(run.first).toMatchObject({ event: "error", error_id: "unauthorized" });
    const empty = await socket.ask({ action: "authenticate" });
    expect(empty.first).toMatchObject({ event: "error", error_id: "unauthorized", detail: "Token is required" });
    const wrong = await socket.ask({ action: "authenticate", token: "not-the-key" });
    expect(wrong.first).toMatchObject({ event: "error", error_id: "unauthorized", detail: "invalid bearer token" });
    const right = await socket.ask({ action: "authenticate", token: KEY });
    expect(right.first).toMatchObject({ event: "authenticated" });
    expect((await socket.ask({ action: "ping" })).first).toMatchObject({ event: "pong" });
    const { id } = await socket.ask({ action: "run", agent_id: "assistant", message: "hi" });
    expect(await socket.until((f) => f.request_id === id && f.event === "RunCompleted")).toMatchObject({
      content: "signed in",
    });
    // The refused run never reached the model: only the authenticated one did.
    expect(await script.requests()).toHaveLength(1);
    await socket.close();
  });

  it("closes with 4001 after five refused tokens", async () => {
    const socket = await openSocket({}, {});
    for (let i = 1; i <= 4; i++)
      expect((await socket.ask({ action: "authenticate", token: `bad-${i}` })).first).toMatchObject({
        event: "error",
        error_id: "unauthorized",
      });
    socket.send({ action: "authenticate", token: "bad-5" });
    expect(await socket.closed).toEqual({ code: 4001, reason: "too many failed authentications" });
    await socket.close();
  });

  it("still refuses a bad bearer header at the upgrade; a good one needs no message", async () => {
    const refused = await upgradeSocket({}, { authorization: "Bearer nope" });
    expect(refused.res.status).toBe(401);
    const socket = await openSocket({}, auth);
    expect((await socket.ask({ action: "ping" })).first).toMatchObject({ event: "pong" });
    await socket.close();
  });

  it("authenticates a JWT by message as that user, within the user's socket cap", async () => {
    const jwt = await isolatedJwt("ws-first-frame");
    const e = { ...jwt.env, AGNO_USER_MAX_WEBSOCKETS: "1" };
    const ann = await jwt.bearer("ann-ff", ["agents:run"]);
    const token = ann.authorization.slice("Bearer ".length);

    // A scoped user: the message's token speaks for ann, with ann's scopes only.
    const first = await openSocket(e, {});
    expect((await first.ask({ action: "authenticate", token })).first).toMatchObject({
      event: "authenticated",
      user_id: "ann-ff",
    });
    const refused = await first.ask({ action: "resume", team_id: "writing-desk", run_id: "none" });
    expect(refused.first).toMatchObject({ event: "error", error_id: "forbidden" });

    // Ann holds her one socket: a second that authenticates as ann is told so and closed.
    const second = await openSocket(e, {});
    const over = await second.ask({ action: "authenticate", token });
    expect(over.first).toMatchObject({ event: "error", error_id: "quota_exceeded" });
    expect(await second.closed).toEqual({ code: 4029, reason: "too many open WebSockets" });
    await second.close();

    // Her first socket closed, its place is free for the next.
    await first.close();
    const third = await openSocket(e, {});
    expect((await third.ask({ action: "authenticate", token })).first).toMatchObject({ event: "authenticated" });
    await third.close();
  });
});
