import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import type { RunEvent } from "../../src/agent/events.js";
import type { Db } from "../../src/db/port.js";
import { ConflictError, DatabaseUnavailableError } from "../../src/errors.js";
import type { Model, ModelRequest } from "../../src/models/model.js";
import { emptyUsage } from "../../src/models/model.js";
import { tool } from "../../src/tools/tool.js";
import { dbTargets, openTestDb, type TestDb } from "../support/db-targets.js";

/**
 * A run's first write (the RUNNING row, with its new session) is not waited for before the model
 * is called; its events are, and so is every later write: whoever sees RunStarted finds the run
 * stored, and a first write that fails fails the run as it did when it was waited for.
 */

const weather = tool({
  name: "weather",
  description: "The weather in a city.",
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => `sunny in ${city}`,
});

/** Asks for the tool, then answers; `onCall` sees each request. */
function scripted(onCall: (req: ModelRequest) => void = () => undefined): Model {
  return {
    id: "scripted",
    provider: "test",
    async *stream(req: ModelRequest) {
      onCall(req);
      if (!req.messages.some((m) => m.role === "tool")) {
        yield { type: "tool_call", id: "call_1", name: "weather", arguments: JSON.stringify({ city: "Oslo" }) };
        yield { type: "finish", reason: "tool_calls", usage: emptyUsage() };
        return;
      }
      yield { type: "text", delta: "Sunny in Oslo." };
      yield { type: "finish", reason: "stop", usage: emptyUsage() };
    },
  };
}

/** `db` with some of its methods replaced (the rest bound to it). */
function withMethods(db: Db, methods: Partial<Db>): Db {
  return new Proxy(db, {
    get(target, prop, receiver) {
      if (prop in methods) return methods[prop as keyof Db];
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe.each(dbTargets())("a run's first write on $name", (target) => {
  let t: TestDb;
  beforeAll(async () => {
    t = openTestDb(target);
    await t.db.init();
  });
  afterAll(() => t.close());

  it("createSessionWithRun stores both in one statement, refuses a taken session id, and leaves a taken run id to the usual write", async () => {
    const session = (id: string) => ({ session_id: id, session_type: "agent" as const, agent_id: "a", user_id: "ann" });
    const run = (id: string, sessionId: string) => ({
      run_id: id,
      session_id: sessionId,
      agent_id: "a",
      status: "RUNNING",
      messages: [],
      created_at: 1,
    });
    const row = await t.db.createSessionWithRun(session("cswr-1"), run("cswr-r1", "cswr-1"));
    expect(row).toMatchObject({
      run_id: "cswr-r1",
      session_id: "cswr-1",
      user_id: "ann",
      status: "RUNNING",
      run_index: 0,
    });
    expect((await t.db.getSession("cswr-1", { includeRuns: false }))?.record.user_id).toBe("ann");

    await expect(t.db.createSessionWithRun(session("cswr-1"), run("cswr-r2", "cswr-1"))).rejects.toBeInstanceOf(
      ConflictError,
    );
    expect(await t.db.getRun("cswr-r2")).toBeNull();

    expect(await t.db.createSessionWithRun(session("cswr-2"), run("cswr-r1", "cswr-2"))).toBeNull();
    expect(await t.db.getSession("cswr-2", { includeRuns: false })).not.toBeNull();
    expect((await t.db.getRun("cswr-r1"))?.session_id).toBe("cswr-1");
  });

  it("the model is called before the first write lands; no event reaches the caller before it, and RunStarted finds the run stored", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let landed = false;
    const db = withMethods(t.db, {
      createSessionWithRun: async (session, run) => {
        await gate;
        const row = await t.db.createSessionWithRun(session, run);
        landed = true;
        return row;
      },
    });
    let calledBeforeLanding = false;
    const agent = new Agent({
      name: "assistant",
      model: scripted(() => (calledBeforeLanding ||= !landed)),
      tools: [weather],
      db,
      cancelPollMs: 60_000,
    });
    const events = agent.run("weather in Oslo?", { stream: true })[Symbol.asyncIterator]();
    let delivered = false;
    const first = events.next().then((step) => ((delivered = true), step));
    await new Promise((r) => setTimeout(r, 100));
    expect(calledBeforeLanding).toBe(true);
    expect(delivered).toBe(false);
    release();
    const started = (await first).value as RunEvent;
    expect(started.event).toBe("RunStarted");
    expect(landed).toBe(true);
    expect(await t.db.getRun(started.run_id)).not.toBeNull();
    const seen = [started.event];
    for (let step = await events.next(); !step.done; step = await events.next()) seen.push(step.value.event);
    expect(seen.at(-1)).toBe("RunCompleted");
    expect(seen.filter((e) => e === "RunStarted")).toHaveLength(1);
    const row = await t.db.getRun(started.run_id);
    expect(row?.status).toBe("COMPLETED");
    expect((row!.run_data as { content?: unknown }).content).toBe("Sunny in Oslo.");
  });

  it("a new session that cannot be stored fails the run as before: thrown before any event, nothing stored", async () => {
    const db = withMethods(t.db, {
      createSessionWithRun: async () => {
        await new Promise((r) => setTimeout(r, 20));
        throw new DatabaseUnavailableError("the database is away");
      },
    });
    const agent = new Agent({ name: "assistant", model: scripted(), tools: [weather], db, cancelPollMs: 60_000 });
    const events = agent.run("weather in Oslo?", { stream: true, sessionId: "s-unstored" })[Symbol.asyncIterator]();
    await expect(events.next()).rejects.toBeInstanceOf(DatabaseUnavailableError);
    await expect(agent.run("again", { sessionId: "s-unstored" })).rejects.toBeInstanceOf(DatabaseUnavailableError);
    expect(await t.db.getSession("s-unstored")).toBeNull();
  });

  it("a RUNNING write that fails ends the run as an ERROR (no RunStarted) and aborts the model request in flight", async () => {
    await t.db.upsertSession({ session_id: "s-kept", session_type: "agent", agent_id: "assistant" });
    const db = withMethods(t.db, {
      upsertRun: async (run, opts) => {
        if (opts?.expectStatus?.includes("PENDING")) {
          await new Promise((r) => setTimeout(r, 50));
          throw new Error("the disk is full");
        }
        return t.db.upsertRun(run, opts);
      },
    });
    let aborted = false;
    const waiting: Model = {
      id: "waiting",
      provider: "test",
      async *stream(req: ModelRequest) {
        await new Promise<void>((resolve) => req.signal?.addEventListener("abort", () => resolve(), { once: true }));
        aborted = true;
        yield { type: "finish", reason: "stop", usage: emptyUsage() };
      },
    };
    const agent = new Agent({ name: "assistant", model: waiting, db, cancelPollMs: 60_000 });
    const seen: RunEvent[] = [];
    for await (const event of agent.run("hi", { stream: true, sessionId: "s-kept" })) seen.push(event);
    expect(seen.map((e) => e.event)).toEqual(["RunError"]);
    expect(aborted).toBe(true);
    const row = await t.db.getRun(seen[0]!.run_id);
    expect(row?.status).toBe("ERROR");
  });

  it("a caller that stops reading closes the run's model stream, as before", async () => {
    let closed = false;
    const slow: Model = {
      id: "slow",
      provider: "test",
      async *stream() {
        try {
          for (let i = 0; i < 50; i++) {
            await new Promise((r) => setTimeout(r, 10));
            yield { type: "text", delta: `${i} ` };
          }
          yield { type: "finish", reason: "stop", usage: emptyUsage() };
        } finally {
          closed = true;
        }
      },
    };
    const agent = new Agent({ name: "assistant", model: slow, db: t.db, cancelPollMs: 60_000 });
    for await (const event of agent.run("count", { stream: true })) if (event.event === "RunContent") break;
    expect(closed).toBe(true);
  });

  it("pre-hooks and the run's session state wait for the first write: they find the run and its session stored", async () => {
    let seenByHook: string | null | undefined;
    const agent = new Agent({
      name: "assistant",
      model: scripted(),
      tools: [weather],
      db: t.db,
      cancelPollMs: 60_000,
      preHooks: [async (ctx) => void (seenByHook = (await t.db.getRun(ctx.runId))?.status)],
    });
    const out = await agent.run("weather in Oslo?", { sessionState: { city: "Oslo" } });
    expect(seenByHook).toBe("RUNNING");
    const session = await t.db.getSession(out.session_id, { includeRuns: false });
    expect(session?.record.session_data?.session_state).toEqual({ city: "Oslo" });
  });
});
