import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import type { RunEvent } from "../../src/agent/events.js";
import { InputCheckError, NotFoundError, ValidationError } from "../../src/errors.js";
import { ModelProviderError } from "../../src/models/provider-error.js";
import { errorEvent, followIds, positioned } from "../../src/os/agent-runs.js";
import { sseResponse } from "../../src/os/sse.js";
import { publicError } from "../../src/public-error.js";
import { collect, scriptedModel } from "../support/agent-kit.js";
import { dbTargets, openTestDb, type TestDb } from "../support/db-targets.js";

const REF = /^internal error \(ref [0-9a-f]{16}\)$/;

describe("publicError: what a client may see of a failure", () => {
  afterEach(() => vi.restoreAllMocks());

  it("passes our own typed errors through with their status and id, logging nothing", () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    expect(publicError(new ValidationError("body message: required", "message"))).toEqual({
      message: "body message: required",
      errorId: "validation_error",
      status: 422,
      type: "ValidationError",
    });
    expect(publicError(new NotFoundError("run r1 not found"))).toMatchObject({
      message: "run r1 not found",
      errorId: "not_found",
      status: 404,
    });
    expect(log).not.toHaveBeenCalled();
  });

  it("keeps a provider error's classified message and kind, never its request or a long quote", () => {
    const cause = Object.assign(new Error("Incorrect API key provided"), {
      statusCode: 401,
      requestBodyValues: { messages: [{ role: "system", content: "SYSTEM PROMPT" }] },
    });
    const shown = publicError(ModelProviderError.from(cause, "openai"));
    expect(shown).toEqual({
      message: "openai auth (HTTP 401): Incorrect API key provided",
      errorId: "model_provider_error",
      status: 502,
      type: "ModelProviderError",
      kind: "auth",
    });
    const long = publicError(new ModelProviderError(`openai unknown: ${"x".repeat(5000)}`, "unknown", "openai"));
    expect(long.message.length).toBeLessThan(600);
  });

  it.each([
    [
      "a driver error quoting its statement",
      new Error('Failed query: insert into "ai"."agno_runs" ("run_id") values ($1)\nparams: SECRET PROMPT'),
    ],
    ["a TypeError", new TypeError("Cannot read properties of undefined (reading 'SECRET')")],
    ["a thrown string", "SECRET string"],
  ])("hides %s behind a reference, logged once with the error", (_name, error) => {
    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const shown = publicError(error, "run r1");
    expect(shown).toMatchObject({
      errorId: "internal_error",
      status: 500,
      type: "InternalError",
      message: expect.stringMatching(REF),
    });
    expect(JSON.stringify(shown)).not.toContain("SECRET");
    expect(log).toHaveBeenCalledTimes(1);
    expect(String(log.mock.calls[0]![0])).toContain(shown.ref!);
    expect(log.mock.calls[0]![1]).toBe(error);
    if (typeof error === "object") {
      // The same error met again (the engine recorded it, then a transport sends it) keeps its ref and is not logged twice.
      expect(publicError(error)).toEqual(shown);
      expect(log).toHaveBeenCalledTimes(1);
    }
  });
});

describe("a run's own failures, as the client sees them", () => {
  afterEach(() => vi.restoreAllMocks());

  it("shows a guardrail's refusal as written, and a hook's bug only as a reference", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const { model } = await scriptedModel([]);
    const refusing = new Agent({
      model,
      preHooks: [
        () => {
          throw new InputCheckError("secrets are not allowed", "pii_detected");
        },
      ],
    });
    expect((await collect(refusing.run("hi", { stream: true }))).at(-1)).toMatchObject({
      event: "RunError",
      content: "secrets are not allowed",
      error_id: "pii_detected",
      error_type: "InputCheckError",
    });
    const buggy = new Agent({
      model,
      preHooks: [
        (ctx) => {
          (ctx as unknown as { missing: { SECRET: string } }).missing.SECRET.trim();
        },
      ],
    });
    const out = await buggy.run("hi");
    expect(out).toMatchObject({
      status: "ERROR",
      content: expect.stringMatching(REF),
      error: { type: "InternalError" },
    });
    expect(
      log.mock.calls.some(
        (c) => String(c[0]).includes(/ref ([0-9a-f]+)/.exec(String(out.content))![1]!) && c[1] instanceof TypeError,
      ),
    ).toBe(true);
  });
});

describe("a stream whose source throws after the run started", () => {
  afterEach(() => vi.restoreAllMocks());

  it("ends with a RunError under the ids its events carried, the error hidden behind a ref", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    async function* run(): AsyncGenerator<RunEvent> {
      yield {
        event: "RunStarted",
        run_id: "r-started",
        session_id: "s-started",
        agent_id: "a",
        created_at: 1,
        model: "m",
        model_provider: "p",
      };
      throw new Error(
        'Failed query: update "ai"."agno_runs" set "run_data" = $1\nparams: {"messages":[{"content":"SECRET"}]}',
      );
    }
    const ids = { agent_id: "a" } as { run_id?: string; session_id?: string; agent_id: string };
    const text = await sseResponse(positioned(followIds(run(), ids)), errorEvent(ids)).text();
    const last = JSON.parse(text.trim().split("\n").at(-1)!.slice(6)) as Record<string, unknown>;
    expect(last).toMatchObject({
      event: "RunError",
      run_id: "r-started",
      session_id: "s-started",
      error_id: "internal_error",
      content: expect.stringMatching(REF),
    });
    expect(text).not.toMatch(/SECRET|Failed query|agno_runs/);
  });
});

/**
 * The database refuses a run's last write (as Postgres refuses text it cannot store): a trigger
 * on the test's own runs table rejects any row holding `marker`, which only the model's answer
 * carries, so the run starts (RUNNING is stored) and its end cannot be stored as it is.
 */
describe.each(dbTargets())("a run whose final write fails ($name)", (target) => {
  const marker = "UNSTORABLE-ANSWER";
  let t: TestDb;
  beforeAll(async () => {
    t = openTestDb(target);
    await t.db.getSessions({ limit: 1 }); // creates the schema
    await t.query(`CREATE FUNCTION "${t.schema}".refuse_marked() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.run_data::text LIKE '%${marker}%' THEN RAISE EXCEPTION 'row refused by the test'; END IF;
        IF NEW.session_id LIKE 'no-end-%' AND NEW.status = 'ERROR' THEN RAISE EXCEPTION 'end refused by the test'; END IF;
        RETURN NEW;
      END $$`);
    await t.query(
      `CREATE TRIGGER refuse_marked BEFORE INSERT OR UPDATE ON "${t.schema}".agno_runs FOR EACH ROW EXECUTE FUNCTION "${t.schema}".refuse_marked()`,
    );
  });
  afterAll(() => t.close());
  afterEach(() => vi.restoreAllMocks());

  const agent = async () => {
    const { model } = await scriptedModel([{ text: `the answer is ${marker}` }]);
    return new Agent({ model, db: t.db, instructions: "SECRET SYSTEM PROMPT" });
  };
  const leaks = (text: string) =>
    [
      "insert into",
      "failed query",
      "agno_runs",
      "params:",
      "SECRET SYSTEM PROMPT",
      "private question",
      marker,
      "refused by the test",
    ].filter((s) => text.toLowerCase().includes(s.toLowerCase()));

  it("streams a RunError with the run's ids and a reference, no SQL or content, and stores the run as ERROR", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const events = await collect((await agent()).run("private question", { stream: true }));
    const started = events[0] as Extract<RunEvent, { event: "RunStarted" }>;
    const last = events.at(-1) as Extract<RunEvent, { event: "RunError" }>;
    expect(last).toMatchObject({
      event: "RunError",
      run_id: started.run_id,
      session_id: started.session_id,
      error_id: "internal_error",
      content: expect.stringMatching(REF),
    });
    expect(leaks(JSON.stringify(last))).toEqual([]);
    const row = await t.db.getRun(started.run_id);
    expect(row).toMatchObject({
      status: "ERROR",
      run_data: { content: last.content, error: { message: last.content } },
    });
    expect(leaks(JSON.stringify(row!.run_data))).toEqual([]);
    // The details are in the server's log, under the ref the client saw.
    const ref = /ref ([0-9a-f]+)/.exec(last.content)![1]!;
    expect(log.mock.calls.some((c) => String(c[0]).includes(ref))).toBe(true);
  });

  it("answers a non-streamed run with its ERROR output, stored as such", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const out = await (await agent()).run("private question");
    expect(out).toMatchObject({
      status: "ERROR",
      content: expect.stringMatching(REF),
      error: { type: "InternalError" },
    });
    expect((await t.db.getRun(out.run_id))?.status).toBe("ERROR");
  });

  it("still ends the stream cleanly when even the run's minimal end cannot be stored (left RUNNING for the liveness sweep)", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const events = await collect(
      (await agent()).run("private question", { stream: true, sessionId: `no-end-${crypto.randomUUID()}` }),
    );
    const last = events.at(-1) as Extract<RunEvent, { event: "RunError" }>;
    expect(last).toMatchObject({ event: "RunError", run_id: events[0]!.run_id, content: expect.stringMatching(REF) });
    expect(leaks(JSON.stringify(last))).toEqual([]);
    expect((await t.db.getRun(last.run_id))?.status).toBe("RUNNING");
  });
});
