import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { dbTargets, openTestDb } from "../support/db-targets.js";
import { startDev } from "../support/dev-server.js";
import { scriptModel } from "../support/model-script.js";

/** `npm run dev` end to end: a real wrangler dev, the embedded Postgres, real HTTP. */
describe("npm run dev", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "agno-dev-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("serves /info, stores sessions in the embedded Postgres and keeps them across a restart", async () => {
    const first = await startDev({ AGNO_DEV_DATA: dataDir });
    try {
      expect(await (await fetch(`${first.url}/info`)).json()).toMatchObject({ os_id: "agno-edge" });
      const created = await fetch(`${first.url}/sessions`, { method: "POST", body: JSON.stringify({ session_id: "kept", agent_id: "dev", session_name: "Kept" }) });
      expect(created.status).toBe(201);
      expect(first.output()).toMatch(/authentication is off/);
    } finally {
      expect(await first.stop()).toBe(0);
    }
    const second = await startDev({ AGNO_DEV_DATA: dataDir });
    try {
      const session = await fetch(`${second.url}/sessions/kept`);
      expect(session.status).toBe(200);
      expect(await session.json()).toMatchObject({ session_id: "kept", session_name: "Kept" });
    } finally {
      await second.stop();
    }
  });

  it("serves the example agent with the model from MODEL and OPENAI_BASE_URL, streaming agno's SSE", async () => {
    const script = await scriptModel(inject("modelServerUrl"), [
      { toolCalls: [{ name: "get_current_time", arguments: { timezone: "Europe/Paris" } }] },
      { text: "It is morning in Paris.", chunkSize: 6 },
    ]);
    const dev = await startDev({ AGNO_DEV_DATA: dataDir, MODEL: "openai:gpt-test", OPENAI_BASE_URL: script.baseURL, OPENAI_API_KEY: "sk-local" });
    try {
      const res = await fetch(`${dev.url}/agents/assistant/runs`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ message: "What time is it in Paris?", user_id: "dev-user" }),
      });
      expect(res.headers.get("content-type")).toMatch(/event-stream/);
      const events = (await res.text()).split("\n\n").filter(Boolean).map((b) => b.split("\n")[0]!.slice(7));
      expect(events[0]).toBe("RunStarted");
      expect(events).toContain("ToolCallCompleted");
      expect(events.at(-1)).toBe("RunCompleted");
      const sessions = await (await fetch(`${dev.url}/sessions?user_id=dev-user`)).json();
      expect(sessions.data[0]).toMatchObject({ session_name: "What time is it in Paris?", agent_id: "assistant" });
      expect((await script.requests())[0]!.headers.authorization).toBe("Bearer sk-local");
      expect(dev.output()).toMatch(/example agent "assistant" uses openai:gpt-test/);
    } finally {
      await dev.stop();
    }
  });

  it("requires the bearer key when OS_SECURITY_KEY is set", async () => {
    const dev = await startDev({ AGNO_DEV_DATA: dataDir, OS_SECURITY_KEY: "local-secret" });
    try {
      expect((await fetch(`${dev.url}/sessions`)).status).toBe(401);
      expect((await fetch(`${dev.url}/sessions`, { headers: { authorization: "Bearer local-secret" } })).status).toBe(200);
    } finally {
      await dev.stop();
    }
  });

  const real = dbTargets().find((t) => t.name === "postgresql");
  it.runIf(real)("switches to DATABASE_URL's server when it is set", async () => {
    const direct = openTestDb(real!);
    const dev = await startDev({ DATABASE_URL: real!.url, AGNO_DB_SCHEMA: direct.schema, AGNO_DEV_DATA: dataDir });
    try {
      const created = await fetch(`${dev.url}/sessions`, { method: "POST", body: JSON.stringify({ session_id: "on-real-pg", agent_id: "dev" }) });
      expect(created.status).toBe(201);
      expect(await direct.query(`SELECT session_id FROM "${direct.schema}".agno_sessions`)).toEqual([{ session_id: "on-real-pg" }]);
    } finally {
      await dev.stop();
      await direct.close();
    }
  });
});
