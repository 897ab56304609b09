import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import type { RunEvent } from "../../src/agent/events.js";
import { InputCheckError } from "../../src/errors.js";
import { tool, Toolkit } from "../../src/tools/tool.js";
import { collect, scriptedModel, memoryTestDb } from "../support/agent-kit.js";

const weather = tool({
  name: "get_weather",
  description: "Current weather for a city",
  parameters: z.object({ city: z.string().min(1) }),
  execute: ({ city }) => ({ city, celsius: city === "Paris" ? 21 : 12 }),
});

/** Agents run through the real provider packages against the scripted model server (SPEC G1, T1-T3). */
describe("Agent runs", () => {
  let t: ReturnType<typeof memoryTestDb>;
  beforeAll(() => {
    t = memoryTestDb();
  });
  afterAll(() => t.close());

  it("answers, stores the run as a row with messages and metrics, and names the new session", async () => {
    const { model, script } = await scriptedModel([
      { text: "Hello Ann!", usage: { inputTokens: 12, outputTokens: 4, cachedTokens: 2 } },
    ]);
    const agent = new Agent({ name: "Greeter", model, instructions: ["Be brief.", "Use names."], db: t.db });
    const out = await agent.run("Hi, I am Ann", { userId: "ann" });
    expect(out).toMatchObject({
      status: "COMPLETED",
      content: "Hello Ann!",
      content_type: "str",
      agent_id: "greeter",
      user_id: "ann",
    });
    expect(out.messages.map((m) => [m.role, m.content])).toEqual([
      ["system", "Be brief.\n\nUse names."],
      ["user", "Hi, I am Ann"],
      ["assistant", "Hello Ann!"],
    ]);
    expect(out.metrics).toMatchObject({ input_tokens: 12, output_tokens: 4, total_tokens: 16, cache_read_tokens: 2 });
    expect(out.metrics.time_to_first_token).toBeGreaterThan(0);
    expect(out.metrics.duration).toBeGreaterThanOrEqual(out.metrics.time_to_first_token!);
    const row = await t.db.getRun(out.run_id);
    expect(row).toMatchObject({
      status: "COMPLETED",
      run_type: "agent",
      agent_id: "greeter",
      user_id: "ann",
      session_id: out.session_id,
    });
    expect(row!.run_data.content).toBe("Hello Ann!");
    const session = await t.db.getSession(out.session_id);
    expect(session!.record.session_data?.session_name).toBe("Hi, I am Ann");
    const [request] = await script.requests();
    expect(request!.body.messages).toEqual([
      { role: "system", content: "Be brief.\n\nUse names." },
      { role: "user", content: "Hi, I am Ann" },
    ]);
  });

  it("streams agno's events in order, RunCompleted once and last", async () => {
    const { model } = await scriptedModel([{ text: "one two three", chunkSize: 3 }]);
    const agent = new Agent({ model, db: t.db });
    const events = await collect(agent.run("count", { stream: true }));
    const names = events.map((e) => e.event);
    expect(names[0]).toBe("RunStarted");
    expect(names.at(-1)).toBe("RunCompleted");
    expect(names.filter((n) => n === "RunCompleted")).toHaveLength(1);
    expect(names).toContain("ModelRequestStarted");
    const deltas = events.filter((e): e is Extract<RunEvent, { event: "RunContent" }> => e.event === "RunContent");
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.map((d) => d.content).join("")).toBe("one two three");
    expect(new Set(events.map((e) => e.run_id)).size).toBe(1);
  });

  it("streams its model calls only when the run is streamed: a run nobody watches makes plain calls with the same result", async () => {
    const turns = [
      { toolCalls: [{ id: "call_p", name: "get_weather", arguments: { city: "Paris" } }] },
      { text: "It is 21°C in Paris.", chunkSize: 4 },
    ];
    const plain = await scriptedModel(turns);
    const out = await new Agent({ model: plain.model, tools: [weather], db: t.db }).run("Paris?");
    const streamed = await scriptedModel(turns);
    const events = await collect(
      new Agent({ model: streamed.model, tools: [weather], db: t.db }).run("Paris?", { stream: true }),
    );
    expect((await plain.script.requests()).map((r) => r.body.stream ?? false)).toEqual([false, false]);
    expect((await streamed.script.requests()).map((r) => r.body.stream)).toEqual([true, true]);
    const streamedRun = (await t.db.getRun(events[0]!.run_id))!.run_data;
    for (const run of [out, streamedRun]) {
      expect(run).toMatchObject({
        status: "COMPLETED",
        content: "It is 21°C in Paris.",
        tools: [{ tool_name: "get_weather", result: '{"city":"Paris","celsius":21}' }],
      });
    }
    expect(out.metrics.input_tokens).toBeGreaterThan(0);
    expect(out.metrics.input_tokens).toBe((streamedRun.metrics as typeof out.metrics).input_tokens);
  });

  it("calls a typed tool, feeds the result back, and records ToolExecutions", async () => {
    const { model, script } = await scriptedModel([
      { toolCalls: [{ id: "call_w", name: "get_weather", arguments: { city: "Paris" } }] },
      { text: "It is 21°C in Paris." },
    ]);
    const agent = new Agent({ model, tools: [new Toolkit({ id: "weather", tools: [weather] })], db: t.db });
    const events = await collect(agent.run("Weather in Paris?", { stream: true }));
    const out = await t.db.getRun(events[0]!.run_id);
    const names = events.map((e) => e.event);
    expect(names.indexOf("ToolCallStarted")).toBeLessThan(names.indexOf("ToolCallCompleted"));
    expect(out!.run_data.tools).toMatchObject([
      {
        tool_call_id: "call_w",
        tool_name: "get_weather",
        tool_args: { city: "Paris" },
        result: '{"city":"Paris","celsius":21}',
      },
    ]);
    const requests = await script.requests();
    expect(requests).toHaveLength(2);
    expect(
      (requests[0]!.body.tools as Array<{ function: { name: string; parameters: unknown } }>)[0]!.function,
    ).toMatchObject({
      name: "get_weather",
      parameters: { type: "object", properties: { city: { type: "string", minLength: 1 } }, required: ["city"] },
    });
    expect((requests[1]!.body.messages as unknown[]).at(-1)).toEqual({
      role: "tool",
      tool_call_id: "call_w",
      content: '{"city":"Paris","celsius":21}',
    });
  });

  it("runs parallel tool calls concurrently", async () => {
    let started = 0;
    let release!: () => void;
    const bothStarted = new Promise<void>((r) => (release = r));
    const rendezvous = tool({
      name: "rendezvous",
      parameters: z.object({ n: z.number() }),
      // Each call waits until both have started: run one after the other, this would never finish.
      execute: async ({ n }) => {
        if (++started === 2) release();
        await Promise.race([
          bothStarted,
          new Promise((_, reject) => setTimeout(() => reject(new Error("not concurrent")), 5000)),
        ]);
        return n * 10;
      },
    });
    const { model } = await scriptedModel([
      {
        toolCalls: [
          { name: "rendezvous", arguments: { n: 1 } },
          { name: "rendezvous", arguments: { n: 2 } },
        ],
      },
      { text: "done" },
    ]);
    const out = await new Agent({ model, tools: [rendezvous], db: t.db }).run("go");
    expect(out.status).toBe("COMPLETED");
    expect(out.tools.map((x) => x.result)).toEqual(["10", "20"]);
  });

  it("feeds tool failures back to the model: a throw, invalid arguments, malformed JSON, an unknown tool", async () => {
    const flaky = tool({
      name: "flaky",
      parameters: z.object({}),
      execute: () => {
        throw new Error("disk full");
      },
    });
    const { model, script } = await scriptedModel([
      {
        toolCalls: [
          { id: "a", name: "flaky", arguments: {} },
          { id: "b", name: "get_weather", arguments: { city: 42 } },
          { id: "c", name: "get_weather", arguments: "{not json" },
          { id: "d", name: "teleport", arguments: {} },
        ],
      },
      { text: "Sorry." },
    ]);
    const events = await collect(new Agent({ model, tools: [flaky, weather], db: t.db }).run("try", { stream: true }));
    expect(events.filter((e) => e.event === "ToolCallError")).toHaveLength(4);
    const toolMessages = (
      (await script.requests())[1]!.body.messages as Array<{ role: string; content: string }>
    ).filter((m) => m.role === "tool");
    expect(toolMessages.map((m) => m.content)).toEqual([
      "Error: disk full",
      expect.stringMatching(/invalid arguments for get_weather.*city/s),
      expect.stringMatching(/not valid JSON/),
      "Error: tool teleport does not exist",
    ]);
    expect(events.at(-1)!.event).toBe("RunCompleted");
  });

  it("enforces the tool call limit and then asks the model to answer without tools", async () => {
    const { model, script } = await scriptedModel([
      {
        toolCalls: [
          { name: "get_weather", arguments: { city: "Paris" } },
          { name: "get_weather", arguments: { city: "Rome" } },
        ],
      },
      { text: "Paris is 21°C; I could not check Rome." },
    ]);
    const out = await new Agent({ model, tools: [weather], toolCallLimit: 1, db: t.db }).run("two cities");
    expect(out.tools.map((x) => [x.tool_args.city, x.tool_call_error ?? false])).toEqual([
      ["Paris", false],
      ["Rome", true],
    ]);
    expect(out.tools[1]!.result).toMatch(/limit of 1/);
    expect((await script.requests())[1]!.body.tool_choice).toBe("none");
  });

  it("returns structured output checked against the output schema", async () => {
    const schema = z.object({ city: z.string(), celsius: z.number() });
    const good = await scriptedModel([{ text: '{"city":"Oslo","celsius":-3}' }]);
    const out = await new Agent({
      model: good.model,
      outputSchema: schema,
      outputSchemaName: "Forecast",
      db: t.db,
    }).run("Oslo?");
    expect(out).toMatchObject({
      status: "COMPLETED",
      content: { city: "Oslo", celsius: -3 },
      content_type: "Forecast",
    });
    const format = (await good.script.requests())[0]!.body.response_format as {
      type: string;
      json_schema: { schema: unknown };
    };
    expect(format.type).toBe("json_schema");
    expect(format.json_schema.schema).toMatchObject({
      properties: { city: { type: "string" }, celsius: { type: "number" } },
    });
    const bad = await scriptedModel([{ text: '{"city":"Oslo"}' }]);
    const failed = await new Agent({ model: bad.model, outputSchema: schema, db: t.db }).run("Oslo?");
    expect(failed.status).toBe("ERROR");
    expect(failed.error?.message).toMatch(/celsius/);
    expect((await t.db.getRun(failed.run_id))!.status).toBe("ERROR");
  });

  it("rebuilds history from stored runs for the next run of the session", async () => {
    const { model, script } = await scriptedModel([{ text: "Nice to meet you, Bo." }, { text: "Your name is Bo." }]);
    const agent = new Agent({ model, db: t.db, addHistoryToContext: true, instructions: "Remember names." });
    const first = await agent.run("I am Bo", { userId: "bo" });
    // A fresh Agent object: history comes from storage, not from memory.
    const again = new Agent({ model, db: t.db, addHistoryToContext: true, instructions: "Remember names." });
    const second = await again.run("What is my name?", { userId: "bo", sessionId: first.session_id });
    expect(second.content).toBe("Your name is Bo.");
    expect((await script.requests())[1]!.body.messages).toEqual([
      { role: "system", content: "Remember names." },
      { role: "user", content: "I am Bo" },
      { role: "assistant", content: "Nice to meet you, Bo." },
      { role: "user", content: "What is my name?" },
    ]);
    expect(second.messages.filter((m) => m.from_history).map((m) => m.role)).toEqual(["user", "assistant"]);
    expect((await t.db.getSession(first.session_id))!.runs).toHaveLength(2);
    await expect(again.run("hi", { userId: "mallory", sessionId: first.session_id })).rejects.toThrow(/not found/);
  });

  it("keeps session state that tools change", async () => {
    const counter = tool({
      name: "bump",
      parameters: z.object({}),
      execute: (_args, ctx) => (ctx.sessionState.count = Number(ctx.sessionState.count ?? 0) + 1),
    });
    const { model } = await scriptedModel([
      { toolCalls: [{ name: "bump", arguments: {} }] },
      { text: "1" },
      { toolCalls: [{ name: "bump", arguments: {} }] },
      { text: "2" },
    ]);
    const agent = new Agent({ model, tools: [counter], db: t.db, sessionState: { count: 0 } });
    const first = await agent.run("bump");
    await agent.run("bump", { sessionId: first.session_id });
    expect((await t.db.getSession(first.session_id))!.record.session_data?.session_state).toEqual({ count: 2 });
  });

  it("uses a reasoning model first and keeps its reasoning", async () => {
    const thinker = await scriptedModel([{ text: "Step 1: 6*7 is 42." }]);
    const { model, script } = await scriptedModel([{ text: "42" }]);
    const out = await new Agent({ model, reasoningModel: thinker.model, db: t.db }).run("6*7?");
    expect(out).toMatchObject({ content: "42", reasoning_content: "Step 1: 6*7 is 42." });
    const sent = (await script.requests())[0]!.body.messages as Array<{ content: string }>;
    expect(sent.at(-1)!.content).toMatch(/Step 1: 6\*7 is 42/);
    expect(out.metrics.details!.model).toHaveLength(2);
  });

  it("searches the user's past sessions when searchPastSessions is on", async () => {
    const setup = await scriptedModel([{ text: "Noted: you like tea." }]);
    await new Agent({ model: setup.model, db: t.db }).run("I like green tea", { userId: "cy" });
    const { model, script } = await scriptedModel([
      { toolCalls: [{ name: "search_past_sessions", arguments: { query: "tea" } }] },
      { text: "You like green tea." },
    ]);
    const out = await new Agent({ model, db: t.db, searchPastSessions: true }).run("What do I like?", { userId: "cy" });
    expect(out.tools[0]!.result).toMatch(/green tea/);
    expect(JSON.stringify((await script.requests())[1]!.body.messages)).toMatch(/green tea/);
  });

  it("runs through the Anthropic Messages protocol too", async () => {
    const { model, script } = await scriptedModel(
      [{ toolCalls: [{ name: "get_weather", arguments: { city: "Rome" } }] }, { text: "12°C in Rome." }],
      "anthropic",
    );
    const out = await new Agent({ model, tools: [weather], db: t.db }).run("Rome?");
    expect(out).toMatchObject({ status: "COMPLETED", content: "12°C in Rome.", model_provider: "anthropic" });
    const requests = await script.requests();
    expect(requests[0]!.path).toMatch(/\/messages$/);
    expect(requests[0]!.headers["x-api-key"]).toBe("test-key");
  });

  it("runs through Gemini's generateContent protocol too", async () => {
    const { model, script } = await scriptedModel(
      [{ toolCalls: [{ name: "get_weather", arguments: { city: "Rome" } }] }, { text: "12°C in Rome." }],
      "google",
    );
    const out = await new Agent({ model, tools: [weather], db: t.db }).run("Rome?");
    expect(out).toMatchObject({ status: "COMPLETED", content: "12°C in Rome.", model_provider: "google" });
    expect(out.tools).toMatchObject([
      { tool_name: "get_weather", tool_args: { city: "Rome" }, result: '{"city":"Rome","celsius":12}' },
    ]);
    const requests = await script.requests();
    expect(requests).toHaveLength(2);
    // Not streamed: one generateContent call per model request, not its SSE variant.
    expect(requests[0]!.path).toMatch(/\/models\/gemini-test:generateContent$/);
    expect(requests[0]!.headers["x-goog-api-key"]).toBe("test-key");
    const contents = requests[1]!.body.contents as Array<{ role: string; parts: object[] }>;
    expect(contents.at(-1)!.parts).toContainEqual({
      functionResponse: expect.objectContaining({ name: "get_weather" }),
    });
    expect(JSON.stringify(contents.at(-1))).toMatch(/celsius.*12/);
  });
});

describe("Agent hooks", () => {
  it("a pre-hook that refuses the input ends the run as a stored ERROR; post-hooks see the output", async () => {
    const t = memoryTestDb();
    try {
      const { model, script } = await scriptedModel([{ text: "fine" }]);
      const seen: string[] = [];
      const agent = new Agent({
        model,
        db: t.db,
        preHooks: [
          ({ input }) => {
            if (input.includes("password")) throw new InputCheckError("input refused: secrets are not allowed");
          },
        ],
        postHooks: [
          (out) => {
            seen.push(String(out.content));
          },
        ],
      });
      const events = await collect(agent.run("my password is hunter2", { stream: true }));
      expect(events.map((e) => e.event)).toEqual(["RunStarted", "RunError"]);
      expect((await t.db.getRun(events[0]!.run_id))!.run_data).toMatchObject({
        status: "ERROR",
        error: { message: "input refused: secrets are not allowed" },
      });
      expect(await script.requests()).toHaveLength(0);
      expect((await agent.run("hello")).content).toBe("fine");
      expect(seen).toEqual(["fine"]);
    } finally {
      await t.close();
    }
  });
});

describe("Agent run inputs", () => {
  it("hands dependencies to instructions and tools, and stores metadata with the run", async () => {
    const t = memoryTestDb();
    try {
      const lookup = tool({
        name: "tenant_lookup",
        parameters: z.object({}),
        execute: (_a, ctx) => `tenant ${String(ctx.dependencies.tenant)}`,
      });
      const { model, script } = await scriptedModel([
        { toolCalls: [{ name: "tenant_lookup", arguments: {} }] },
        { text: "done" },
      ]);
      const agent = new Agent({
        model,
        db: t.db,
        tools: [lookup],
        instructions: (ctx) => `Serve tenant ${String(ctx.dependencies.tenant)}.`,
      });
      const out = await agent.run("who am I serving?", {
        dependencies: { tenant: "acme" },
        metadata: { source: "crm" },
      });
      expect(out.tools[0]!.result).toBe("tenant acme");
      expect(((await script.requests())[0]!.body.messages as Array<{ content: string }>)[0]!.content).toBe(
        "Serve tenant acme.",
      );
      expect((await t.db.getRun(out.run_id))!.run_data.metadata).toEqual({ source: "crm" });
    } finally {
      await t.close();
    }
  });
});
