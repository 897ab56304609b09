import { afterAll, expect, it } from "vitest";
import { MigrationManager, PostgresDb, ValidationError } from "../../src/sdk.js";
import { dbTargets, openTestDb } from "../support/db-targets.js";

// The README's storage example, through the public SDK surface.
const t = openTestDb(dbTargets()[0]!);
afterAll(() => t.close());

it("runs the README's storage example through the SDK exports", async () => {
  const db: PostgresDb = new PostgresDb({ pool: t.pool, schema: t.schema });
  await db.upsertSession({ session_id: "s1", session_type: "agent", agent_id: "helper", user_id: "ann" });
  await db.upsertRun({
    run_id: "r1",
    session_id: "s1",
    agent_id: "helper",
    status: "COMPLETED",
    messages: [
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello" },
    ],
  });
  const session = await db.getSession("s1");
  expect(session!.getChatHistory().map((m) => [m.role, m.content])).toEqual([
    ["user", "hi"],
    ["assistant", "hello"],
  ]);
  expect(
    (await db.getRuns({ userId: "ann", status: "COMPLETED", limit: 20, page: 1 })).data.map((r) => r.run_id),
  ).toEqual(["r1"]);
  expect((await db.getSessions({ includeRuns: false, limit: 50 })).total_count).toBe(1);
  await expect(db.getRuns({ page: 1 })).rejects.toThrow(ValidationError);
  expect(await new MigrationManager(db).up()).toEqual({
    default: { fromVersion: "3.0.9", toVersion: "3.0.9", sessionsScanned: 0, runsCopied: 0 },
  });
});

it("runs the README's agent example through the SDK exports", async () => {
  const { z } = await import("zod");
  const { Agent, tool, createModel } = await import("../../src/sdk.js");
  const { scriptModel } = await import("../support/model-script.js");
  const { inject } = await import("vitest");
  const script = await scriptModel(inject("modelServerUrl"), [
    { toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }] },
    { text: "21°C in Paris." },
    { text: "Rome is ", chunkSize: 3 },
  ]);
  const weather = tool({
    name: "get_weather",
    description: "Current weather for a city",
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => ({ city, celsius: 21 }),
  });
  const db = new PostgresDb({ pool: t.pool, schema: t.schema });
  const agent = new Agent({
    name: "Weather",
    model: createModel("openai:qwen2.5", { credentials: { openai: { baseURL: script.baseURL } } }),
    instructions: "Answer in one sentence.",
    tools: [weather],
    db,
    addHistoryToContext: true,
  });
  const out = await agent.run("Weather in Paris?", { userId: "ann" });
  expect(out.content).toBe("21°C in Paris.");
  let streamed = "";
  for await (const ev of agent.run("And Rome?", { sessionId: out.session_id, userId: "ann", stream: true })) {
    if (ev.event === "RunContent") streamed += ev.content ?? "";
  }
  expect(streamed).toBe("Rome is ");
  expect((await db.getSession(out.session_id))!.runs).toHaveLength(2);
});
