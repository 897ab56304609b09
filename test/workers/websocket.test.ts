import { waitOnExecutionContext } from "cloudflare:test";
import { exportSPKI, generateKeyPair, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/index.js";
import { auth, call, parseSse, send, modelEnv, upgradeSocket } from "./worker-client.js";

type Frame = Record<string, unknown> & { event: string };

/** Opens `GET /ws` through the Worker's fetch handler and collects what the server sends. */
async function connect(overrides: Partial<Env>, headers: Record<string, string> = auth) {
  const { res, ctx } = await upgradeSocket(overrides, headers);
  expect(res.status).toBe(101);
  const ws = res.webSocket!;
  const frames: Frame[] = [];
  const waiters: Array<() => void> = [];
  ws.addEventListener("message", (evt) => {
    frames.push(JSON.parse(evt.data as string) as Frame);
    waiters.splice(0).forEach((wake) => wake());
  });
  /** Waits until a frame matching `match` has arrived (the one after `from`, if given). */
  const until = async (match: (f: Frame) => boolean, from = 0) => {
    for (;;) {
      const found = frames.slice(from).find(match);
      if (found) return found;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.addEventListener("close", (evt) => resolve({ code: evt.code, reason: evt.reason })),
  );
  /** The close the client saw, or "open" if none came within `ms` (a bound for a failing case, not a time limit on a passing one). */
  const closeWithin = (ms: number) =>
    Promise.race([closed, new Promise<"open">((resolve) => setTimeout(() => resolve("open"), ms))]);
  return {
    send: (message: unknown) => ws.send(typeof message === "string" ? message : JSON.stringify(message)),
    frames,
    until,
    closeWithin,
    /** Closes from the client side and returns the close the server answered with. */
    async closeAndWait(ms = 10_000) {
      ws.close(1000, "done");
      const answer = await closeWithin(ms);
      await waitOnExecutionContext(ctx);
      return answer;
    },
    async close() {
      ws.close(1000, "done");
      await waitOnExecutionContext(ctx);
    },
  };
}

const ofRequest = (frames: Frame[], id: string) => frames.filter((f) => f.request_id === id);

describe("WebSocket streaming (GET /ws)", () => {
  it("runs, numbers events like SSE, and serves two runs over one socket side by side", async () => {
    const { env: e } = await modelEnv([
      { text: "first answer", chunkSize: 3 },
      { text: "second answer", chunkSize: 3 },
    ]);
    const socket = await connect(e);
    socket.send({ action: "ping", id: "p" });
    expect(await socket.until((f) => f.event === "pong")).toMatchObject({ request_id: "p" });
    socket.send({ action: "run", id: "r1", agent_id: "assistant", message: "one", user_id: "ws-user" });
    socket.send({ action: "run", id: "r2", agent_id: "assistant", message: "two", user_id: "ws-user" });
    await socket.until((f) => f.request_id === "r1" && f.event === "RunCompleted");
    await socket.until((f) => f.request_id === "r2" && f.event === "RunCompleted");
    for (const id of ["r1", "r2"]) {
      const run = ofRequest(socket.frames, id);
      expect(run.map((f) => f.event_index)).toEqual(run.map((_, i) => i));
      expect(new Set(run.map((f) => f.run_id)).size).toBe(1);
    }
    const contents = ["r1", "r2"].map((id) =>
      ofRequest(socket.frames, id)
        .filter((f) => f.event === "RunContent")
        .map((f) => f.content)
        .join(""),
    );
    expect(contents.sort()).toEqual(["first answer", "second answer"]);
    await socket.close();

    // The same log serves an HTTP resume: transports are interchangeable.
    const r1 = ofRequest(socket.frames, "r1");
    const replay = parseSse(
      await (await send(`/agents/assistant/runs/${r1[0]!.run_id}/resume`, { method: "POST" }, e)).text(),
    );
    expect(replay.map((f) => f.event)).toEqual(r1.map((f) => f.event));
  });

  it("resumes over the socket and cancels a running run", async () => {
    const { env: e } = await modelEnv([{ text: "abcdefghijklmnop", chunkSize: 2 }, { hang: true }]);
    const socket = await connect(e);
    socket.send({ action: "run", id: "done", agent_id: "assistant", message: "spell" });
    const completed = await socket.until((f) => f.request_id === "done" && f.event === "RunCompleted");
    socket.send({
      action: "resume",
      id: "again",
      agent_id: "assistant",
      run_id: completed.run_id,
      last_event_index: 2,
    });
    await socket.until((f) => f.request_id === "again" && f.event === "RunCompleted");
    const original = ofRequest(socket.frames, "done");
    expect(ofRequest(socket.frames, "again").map((f) => f.event_index)).toEqual(
      original.slice(3).map((f) => f.event_index),
    );

    socket.send({ action: "run", id: "long", agent_id: "assistant", message: "take your time" });
    const started = await socket.until((f) => f.request_id === "long" && f.event === "ModelRequestStarted");
    socket.send({ action: "cancel", id: "stop", agent_id: "assistant", run_id: started.run_id });
    expect(await socket.until((f) => f.event === "CancelResult")).toMatchObject({
      request_id: "stop",
      run_id: started.run_id,
      cancelled: true,
    });
    expect(await socket.until((f) => f.request_id === "long" && f.event === "RunCancelled")).toBeTruthy();
    await socket.close();
    expect((await call(`/agents/assistant/runs/${started.run_id}`, {}, e)).body.status).toBe("CANCELLED");
  });

  it("continues a finished run over the socket as over HTTP: in a new run, whose log holds its events", async () => {
    const { env: e } = await modelEnv([{ text: "first" }, { text: "and more" }]);
    const socket = await connect(e);
    socket.send({ action: "run", id: "one", agent_id: "assistant", message: "start" });
    const done = await socket.until((f) => f.request_id === "one" && f.event === "RunCompleted");
    const original = ofRequest(socket.frames, "one");
    socket.send({ action: "continue", id: "on", agent_id: "assistant", run_id: done.run_id, requirements: [] });
    await socket.until((f) => f.request_id === "on" && f.event === "RunCompleted");
    const continued = ofRequest(socket.frames, "on");
    const forkId = continued[0]!.run_id;
    expect(forkId).not.toBe(done.run_id);
    expect(continued.map((f) => f.event_index)).toEqual(continued.map((_, i) => i));
    await socket.close();
    // Each run's log holds its own events: the fork's resume replays the continue, the original's is unchanged.
    const replay = async (runId: unknown) =>
      parseSse(await (await send(`/agents/assistant/runs/${runId}/resume`, { method: "POST" }, e)).text());
    expect((await replay(forkId)).map((f) => f.event)).toEqual(continued.map((f) => f.event));
    expect((await replay(done.run_id)).map((f) => f.event)).toEqual(original.map((f) => f.event));
  });

  it("answers bad messages with an error frame and stays open", async () => {
    const { env: e, script } = await modelEnv([{ text: "still here" }]);
    const socket = await connect(e);
    const cases: Array<[unknown, RegExp, string]> = [
      ["{not json", /not valid JSON/, "validation_error"],
      [{ action: "dance", id: "x" }, /action/, "validation_error"],
      [{ action: "run", id: "m", agent_id: "assistant" }, /message/, "validation_error"],
      [{ action: "run", id: "n", agent_id: "nobody", message: "hi" }, /nobody/, "not_found"],
      [{ action: "resume", id: "o", agent_id: "assistant", run_id: "no-such-run" }, /no-such-run/, "not_found"],
      [{ action: "continue", id: "q", agent_id: "assistant", run_id: "no-such-run" }, /tools/, "validation_error"],
      ["x".repeat(1024 * 1024 + 1), /limited/, "validation_error"],
    ];
    for (const [message, detail, errorId] of cases) {
      const from = socket.frames.length;
      socket.send(message);
      expect(await socket.until((f) => f.event === "error", from)).toMatchObject({
        detail: expect.stringMatching(detail),
        error_id: errorId,
      });
    }
    socket.send({ action: "run", id: "ok", agent_id: "assistant", message: "hi" });
    expect(await socket.until((f) => f.request_id === "ok" && f.event === "RunCompleted")).toMatchObject({
      content: "still here",
    });
    expect(await script.requests()).toHaveLength(1);
    await socket.close();
  });

  it("refuses a bad bearer header at the upgrade, and needs a WebSocket to upgrade", async () => {
    // Without a header the upgrade is accepted and the socket waits for credentials (websocket-first-frame.test.ts).
    const badAuth = await send("/ws", { headers: { upgrade: "websocket" } }, {}, { authorization: "Bearer nope" });
    expect(badAuth.status).toBe(401);
    const plain = await call("/ws");
    expect(plain).toMatchObject({ status: 426, body: { error_id: "upgrade_required" } });
  });
});

/** A JWT deployment whose tokens the test signs with any claims (expiry included). */
async function jwtDeployment() {
  const rsa = await generateKeyPair("RS256", { extractable: true });
  const env: Partial<Env> = {
    OS_SECURITY_KEY: undefined,
    JWT_VERIFICATION_KEYS: JSON.stringify([{ pem: await exportSPKI(rsa.publicKey), kid: "ws" }]),
    JWT_AUDIENCE: "agno-ws",
    JWT_ISSUER: "https://issuer.ws.test",
  };
  const bearer = async (scopes: string[], exp = Math.floor(Date.now() / 1000) + 3600) => {
    const jwt = await new SignJWT({
      sub: "ws-user",
      aud: "agno-ws",
      iss: "https://issuer.ws.test",
      iat: Math.floor(Date.now() / 1000) - 60,
      exp,
      scopes,
    })
      .setProtectedHeader({ alg: "RS256", kid: "ws" })
      .sign(rsa.privateKey);
    return { authorization: `Bearer ${jwt}` };
  };
  return { env, bearer };
}

describe("WebSocket and its token", () => {
  it("answers the client's close with the same code (a socket left half-open never ends its request)", async () => {
    const socket = await connect({});
    socket.send({ action: "ping", id: "p" });
    await socket.until((f) => f.event === "pong");
    expect(await socket.closeAndWait()).toEqual({ code: 1000, reason: "done" });
  });

  it("closes a socket with 4001 when its JWT expires; a socket with a live token keeps working", async () => {
    const jwt = await jwtDeployment();
    const { env: models } = await modelEnv([]);
    const e = { ...jwt.env, ...models };
    // Expired 27 s ago: still accepted within the 30 s of clock skew, so it expires 3 s from now.
    const expiring = await connect(e, await jwt.bearer(["agents:run"], Math.floor(Date.now() / 1000) - 27));
    const live = await connect(e, await jwt.bearer(["agents:run"]));
    expiring.send({ action: "ping", id: "before" });
    await expiring.until((f) => f.event === "pong");
    expect(await expiring.closeWithin(20_000)).toEqual({ code: 4001, reason: "token expired" });
    live.send({ action: "ping", id: "after" });
    expect(await live.until((f) => f.event === "pong")).toMatchObject({ request_id: "after" });
    await live.close();
  });

  it("resume needs agents:run, over the socket as over HTTP (agents:read alone is refused by both)", async () => {
    const jwt = await jwtDeployment();
    const { env: models } = await modelEnv([{ text: "resumable", chunkSize: 3 }]);
    const e = { ...jwt.env, ...models };
    const runner = await jwt.bearer(["agents:run"]);
    const reader = await jwt.bearer(["agents:read"]);
    const socket = await connect(e, runner);
    socket.send({ action: "run", id: "r", agent_id: "assistant", message: "hi" });
    const done = await socket.until((f) => f.request_id === "r" && f.event === "RunCompleted");
    socket.send({ action: "resume", id: "again", agent_id: "assistant", run_id: done.run_id });
    expect(
      await socket.until((f) => f.request_id === "again" && (f.event === "RunCompleted" || f.event === "error")),
    ).toMatchObject({ event: "RunCompleted" });
    await socket.close();

    const readOnly = await connect(e, reader);
    readOnly.send({ action: "resume", id: "peek", agent_id: "assistant", run_id: done.run_id });
    expect(await readOnly.until((f) => f.request_id === "peek")).toMatchObject({
      event: "error",
      error_id: "forbidden",
      detail: expect.stringContaining("agents:assistant:run"),
    });
    await readOnly.close();

    const path = `/agents/assistant/runs/${done.run_id}/resume`;
    expect((await send(path, { method: "POST" }, e, reader)).status).toBe(403);
    expect(parseSse(await (await send(path, { method: "POST" }, e, runner)).text()).at(-1)!.event).toBe("RunCompleted");
  });
});
