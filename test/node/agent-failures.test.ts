import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { RunEvent } from "../../src/agent/events.js";
import { ModelProviderError } from "../../src/models/provider-error.js";
import type { Db } from "../../src/db/port.js";
import { collect, memoryTestDb, scriptedModel } from "../support/agent-kit.js";
import { dbTargets, openTestDb } from "../support/db-targets.js";

/**
 * Provider failures (SPEC T3) and cancellation from another caller (SPEC G1), on MemoryDb and on
 * Postgres: a cancel is a status compare-and-set in storage, so both adapters carry it.
 */
const stores: Array<[string, () => { db: Db; close(): Promise<void> }]> = [
  ["memory", memoryTestDb],
  ["postgres", () => openTestDb(dbTargets()[0]!)],
];
describe.each(stores)("Agent failures and cancellation on %s", (_name, open) => {
  let t: { db: Db; close(): Promise<void> };
  beforeAll(() => {
    t = open();
  });
  afterAll(() => t.close());

  it.each([
    [{ status: 401, message: "Incorrect API key provided" }, "auth"],
    [
      { status: 400, message: "This model's maximum context length is 8192 tokens", code: "context_length_exceeded" },
      "context_length",
    ],
  ] as const)(
    "classifies a provider error %j as %s, stores the run as ERROR and never retries it",
    async (error, kind) => {
      const { model, script } = await scriptedModel([{ error }]);
      const events = await collect(new Agent({ model, db: t.db }).run("hi", { stream: true }));
      const last = events.at(-1) as Extract<RunEvent, { event: "RunError" }>;
      expect(last).toMatchObject({ event: "RunError", error_kind: kind, error_type: "ModelProviderError" });
      expect((await t.db.getRun(last.run_id))!.run_data).toMatchObject({ status: "ERROR", error: { kind } });
      expect(await script.requests()).toHaveLength(1);
    },
  );

  it("refuses session state too deep for a stack or for jsonb before anything is stored or sent to the model", async () => {
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 7000; i++) deep = { a: deep };
    const { model, script } = await scriptedModel([{ text: "never" }]);
    const agent = new Agent({ model, db: t.db });
    await expect(agent.run("hi", { sessionId: "deep-sdk", sessionState: deep })).rejects.toMatchObject({
      name: "ValidationError",
      message: expect.stringMatching(/^sessionState\.a\.a.*deeper than 64 levels/),
    });
    expect(() => agent.run("hi", { sessionId: "deep-sdk", metadata: { list: [deep] }, stream: true })).toThrow(
      /metadata\.list\.0/,
    );
    expect(await t.db.getSession("deep-sdk")).toBeNull();
    expect(await script.requests()).toEqual([]);
  });

  it("retries a rate limit (honouring retry-after) and a server error, then succeeds", async () => {
    const { model, script } = await scriptedModel([
      { error: { status: 429, headers: { "retry-after": "0" } } },
      { error: { status: 503 } },
      { text: "finally" },
    ]);
    const out = await new Agent({ model, db: t.db }).run("hi");
    expect(out).toMatchObject({ status: "COMPLETED", content: "finally" });
    expect(await script.requests()).toHaveLength(3);
  });

  it("gives up after its retries with a classified error", async () => {
    const { model, script } = await scriptedModel([{ error: { status: 500 } }, { error: { status: 500 } }], "openai", {
      maxRetries: 1,
    });
    const out = await new Agent({ model, db: t.db }).run("hi");
    expect(out.status).toBe("ERROR");
    expect(out.error).toMatchObject({ type: "ModelProviderError", kind: "server" });
    expect(await script.requests()).toHaveLength(2);
  });

  it("does not retry a stream that broke after output: that would repeat it", async () => {
    const { model, script } = await scriptedModel([
      { dropAfterChunks: 3, text: "partial answer that never ends" },
      { text: "must not be used" },
    ]);
    // Streamed, so the model call streams and its answer breaks off after it began.
    const events = await collect(
      new Agent({ model, db: t.db }).run("hi", { stream: true, runId: `dropped-${crypto.randomUUID()}` }),
    );
    expect(events.at(-1)).toMatchObject({ event: "RunError", error_kind: "network" });
    expect((await t.db.getRun(String(events[0]!.run_id)))?.status).toBe("ERROR");
    expect(await script.requests()).toHaveLength(1);
  });

  it("classifies errors of every shape", () => {
    expect(ModelProviderError.classify({ statusCode: 429 })).toBe("rate_limit");
    expect(ModelProviderError.classify({ statusCode: 403 })).toBe("auth");
    expect(ModelProviderError.classify({ statusCode: 502 })).toBe("server");
    expect(ModelProviderError.classify({ statusCode: 400, message: "prompt is too long: 250000 tokens" })).toBe(
      "context_length",
    );
    expect(ModelProviderError.classify(Object.assign(new Error("connect"), { code: "ECONNREFUSED" }))).toBe("network");
    expect(ModelProviderError.classify(new TypeError("fetch failed"))).toBe("network");
    // workerd's fetch: a plain Error, alone or as the cause of the SDK's error for a 200 whose body was cut
    expect(ModelProviderError.classify(new Error("Network connection lost."))).toBe("network");
    expect(
      ModelProviderError.classify(
        Object.assign(new Error("Failed to process successful response"), {
          statusCode: 200,
          cause: new Error("Network connection lost."),
        }),
      ),
    ).toBe("network");
    expect(ModelProviderError.classify({ statusCode: 400, message: "bad temperature" })).toBe("unknown");
    expect(
      ModelProviderError.classify(
        Object.assign(new Error("OpenAI API key is missing."), { name: "AI_LoadAPIKeyError" }),
      ),
    ).toBe("auth");
  });

  it("cancels a running run from another Agent object (another request): the model call is dropped", async () => {
    const { model, script } = await scriptedModel([{ hang: true }]);
    const agent = new Agent({ model, db: t.db, cancelPollMs: 50 });
    const events: RunEvent[] = [];
    const done = (async () => {
      for await (const e of agent.run("long task", { stream: true })) events.push(e);
    })();
    while (!events.some((e) => e.event === "ModelRequestStarted")) await new Promise((r) => setTimeout(r, 10));
    const runId = events[0]!.run_id;
    // The other caller shares nothing with the first but the database.
    expect(await new Agent({ model, db: t.db }).cancelRun(runId)).toBe(true);
    await done;
    expect(events.at(-1)!.event).toBe("RunCancelled");
    expect((await t.db.getRun(runId))!.status).toBe("CANCELLED");
    for (let i = 0; i < 50 && !(await script.requests())[0]?.disconnected; i++)
      await new Promise((r) => setTimeout(r, 20));
    expect((await script.requests())[0]!.disconnected).toBe(true);
    expect(await new Agent({ model, db: t.db }).cancelRun(runId)).toBe(false);
  });

  it("a run cancelled before it starts never calls the model", async () => {
    const { model, script } = await scriptedModel([{ text: "should not run" }]);
    await t.db.upsertSession({ session_id: "queued-s", session_type: "agent", agent_id: "agent" });
    await t.db.upsertRun({ run_id: "queued-r", session_id: "queued-s", agent_id: "agent", status: "PENDING" });
    const agent = new Agent({ model, db: t.db });
    expect(await agent.cancelRun("queued-r")).toBe(true);
    const out = await agent.run("go", { runId: "queued-r", sessionId: "queued-s" });
    expect(out.status).toBe("CANCELLED");
    expect(await script.requests()).toHaveLength(0);
    expect((await t.db.getRun("queued-r"))!.status).toBe("CANCELLED");
  });

  it("a run that finishes while a cancel lands is stored as cancelled, never overwritten as completed", async () => {
    const { model } = await scriptedModel([{ text: "slow answer", chunkSize: 2, delayMs: 30 }]);
    const agent = new Agent({ model, db: t.db, cancelPollMs: 10_000 });
    const stream = agent.run("x", { stream: true })[Symbol.asyncIterator]();
    const first = await stream.next();
    const runId = (first.value as RunEvent).run_id;
    // Cancel through storage only (another isolate), with no poll to notice it in time.
    const row = (await t.db.getRun(runId))!;
    await t.db.upsertRun({ ...row.run_data, status: "CANCELLED" }, { expectStatus: ["RUNNING"] });
    let last: RunEvent | undefined;
    for (let n = await stream.next(); !n.done; n = await stream.next()) last = n.value;
    expect(last!.event).toBe("RunCancelled");
    expect((await t.db.getRun(runId))!.status).toBe("CANCELLED");
  });
});
