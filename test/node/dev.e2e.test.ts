import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { dbTargets, openTestDb } from "../support/db-targets.js";
import { startDev } from "../support/dev-server.js";
import { scriptModel } from "../support/model-script.js";

const JSON_BODY = { "content-type": "application/json" };
const FORM = { "content-type": "application/x-www-form-urlencoded" };

/** SSE frames as `{id, event, data}`; agno's framing plus the standard `id:` position. */
function frames(text: string) {
  return text
    .split("\n\n")
    .filter(Boolean)
    .map((block) => {
      const fields = Object.fromEntries(
        block.split("\n").map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 2)]),
      );
      return { id: Number(fields.id), event: fields.event!, data: JSON.parse(fields.data!) as Record<string, unknown> };
    });
}

/** `npm run dev` end to end: a real wrangler dev, the embedded Postgres, real HTTP. */
describe("npm run dev", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "agno-dev-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("serves /info, stores sessions in the embedded Postgres and keeps them across a restart", async () => {
    // The one start that creates the embedded Postgres itself, as a user's first `npm run dev` does.
    const first = await startDev({ AGNO_DEV_DATA: dataDir }, [], { freshDatabase: true });
    try {
      expect(await (await fetch(`${first.url}/info`)).json()).toMatchObject({ os_id: "agno-edge" });
      const created = await fetch(`${first.url}/sessions`, {
        method: "POST",
        headers: JSON_BODY,
        body: JSON.stringify({ session_id: "kept", agent_id: "dev", session_name: "Kept" }),
      });
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
  }, 180_000); // two starts of the whole dev stack, each allowed its own two minutes (startDev)

  it("serves the example agent: a run by SSE and by JSON, a paused run continued, a dropped stream resumed, sessions listed", async () => {
    const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
    const script = await scriptModel(inject("modelServerUrl"), [
      { toolCalls: [{ name: "get_current_time", arguments: { timezone: "Europe/Paris" } }] },
      { text: "It is morning in Paris.", chunkSize: 6 },
      { text: "Noted, Bo." },
      { toolCalls: [{ id: "note-1", name: "save_note", arguments: { note: "buy milk" } }] },
      { text: "Saved your note." },
      { text: alphabet, chunkSize: 2, delayMs: 60 },
    ]);
    const dev = await startDev({
      AGNO_DEV_DATA: dataDir,
      MODEL: "openai:gpt-test",
      OPENAI_BASE_URL: script.baseURL,
      OPENAI_API_KEY: "sk-local",
    });
    const run = (fields: Record<string, string>, init: RequestInit = {}) =>
      fetch(`${dev.url}/agents/assistant/runs`, {
        method: "POST",
        headers: FORM,
        body: new URLSearchParams({ user_id: "dev-user", ...fields }),
        ...init,
      });
    try {
      // SSE, as agno's client sends it (a form; stream defaults to true)
      const sse = await run({ message: "What time is it in Paris?" });
      expect(sse.headers.get("content-type")).toMatch(/event-stream/);
      const first = frames(await sse.text());
      expect(first.map((f) => f.id)).toEqual(first.map((_, i) => i));
      expect(first[0]!.event).toBe("RunStarted");
      expect(first.map((f) => f.event)).toContain("ToolCallCompleted");
      expect(first.at(-1)!.event).toBe("RunCompleted");
      const sessionId = first[0]!.data.session_id as string;

      // JSON, in the same session
      const json = await (await run({ message: "I am Bo", stream: "false", session_id: sessionId })).json();
      expect(json).toMatchObject({ status: "COMPLETED", content: "Noted, Bo.", session_id: sessionId });

      // A tool that needs confirmation pauses the run; continue with agno's tools list
      const paused = frames(await (await run({ message: "Remember to buy milk", session_id: sessionId })).text());
      expect(paused.at(-1)).toMatchObject({ event: "RunPaused", data: { requirements: [{ id: "note-1" }] } });
      const runId = paused[0]!.data.run_id as string;
      const tools = (paused.at(-1)!.data.tools as Array<Record<string, unknown>>).map((t) => ({
        ...t,
        confirmed: true,
      }));
      const continued = frames(
        await (
          await fetch(`${dev.url}/agents/assistant/runs/${runId}/continue`, {
            method: "POST",
            headers: FORM,
            body: new URLSearchParams({ tools: JSON.stringify(tools), user_id: "dev-user" }),
          })
        ).text(),
      );
      expect(continued[0]).toMatchObject({ id: paused.length, event: "RunContinued" });
      expect(continued.at(-1)).toMatchObject({ event: "RunCompleted", data: { content: "Saved your note." } });

      // A stream that drops mid-run, re-attached with the last position the client saw
      const abort = new AbortController();
      const slow = await run({ message: "Spell slowly", session_id: sessionId }, { signal: abort.signal });
      const reader = slow.body!.pipeThrough(new TextDecoderStream()).getReader();
      let text = "";
      while ((text.match(/event: RunContent/g) ?? []).length < 3) text += (await reader.read()).value ?? "";
      abort.abort();
      const seen = frames(text.slice(0, text.lastIndexOf("\n\n") + 2));
      const rest = frames(
        await (
          await fetch(`${dev.url}/agents/assistant/runs/${seen[0]!.data.run_id}/resume`, {
            method: "POST",
            headers: JSON_BODY,
            body: JSON.stringify({ last_event_index: seen.at(-1)!.id, user_id: "dev-user" }),
          })
        ).text(),
      );
      expect(rest[0]!.id).toBe(seen.at(-1)!.id + 1);
      expect(rest.at(-1)!.event).toBe("RunCompleted");
      const spelled = [...seen, ...rest]
        .filter((f) => f.event === "RunContent")
        .map((f) => f.data.content)
        .join("");
      expect(spelled).toBe(alphabet);

      // Sessions: the one session, named after its first message, holding the confirmed note
      const sessions = await (await fetch(`${dev.url}/sessions?user_id=dev-user`)).json();
      expect(sessions.data).toHaveLength(1);
      expect(sessions.data[0]).toMatchObject({
        session_id: sessionId,
        session_name: "What time is it in Paris?",
        agent_id: "assistant",
        session_state: { notes: ["buy milk"] },
      });
      const runs = await (await fetch(`${dev.url}/sessions/${sessionId}/runs?user_id=dev-user`)).json();
      expect(runs.map((r: { status: string }) => r.status)).toEqual([
        "COMPLETED",
        "COMPLETED",
        "COMPLETED",
        "COMPLETED",
      ]);
      expect((await script.requests())[0]!.headers.authorization).toBe("Bearer sk-local");
      expect(dev.output()).toMatch(/MODEL is openai:gpt-test/);
    } finally {
      await dev.stop();
    }
  });

  // OS_SECURITY_KEY's bearer key is required: see protocols-dev.e2e.test.ts, whose dev server has one.

  it("AGNO_DEV_INSPECTOR=off serves the same Worker without the inspector: a background run completes", async () => {
    const script = await scriptModel(inject("modelServerUrl"), [{ text: "queued and done" }]);
    const dev = await startDev({
      AGNO_DEV_DATA: dataDir,
      AGNO_DEV_INSPECTOR: "off",
      MODEL: "openai:gpt-test",
      OPENAI_BASE_URL: script.baseURL,
      OPENAI_API_KEY: "sk-local",
    });
    try {
      expect(dev.output()).toMatch(/without the DevTools inspector/);
      const accepted = await fetch(`${dev.url}/agents/assistant/runs`, {
        method: "POST",
        headers: JSON_BODY,
        body: JSON.stringify({ message: "later", background: true, stream: false }),
      });
      expect(accepted.status).toBe(202);
      const { run_id } = (await accepted.json()) as { run_id: string };
      const deadline = Date.now() + 30_000;
      let run: { status?: string; content?: string } = {};
      while (Date.now() < deadline && run.status !== "COMPLETED") {
        await new Promise((r) => setTimeout(r, 250));
        run = (await (await fetch(`${dev.url}/agents/assistant/runs/${run_id}`)).json()) as typeof run;
      }
      expect(run).toMatchObject({ status: "COMPLETED", content: "queued and done" });
    } finally {
      expect(await dev.stop()).toBe(0);
    }
  });

  const real = dbTargets().find((t) => t.name === "postgresql");
  it.runIf(real)("switches to DATABASE_URL's server when it is set", async () => {
    const direct = openTestDb(real!);
    const dev = await startDev({ DATABASE_URL: real!.url, AGNO_DB_SCHEMA: direct.schema, AGNO_DEV_DATA: dataDir });
    try {
      const created = await fetch(`${dev.url}/sessions`, {
        method: "POST",
        headers: JSON_BODY,
        body: JSON.stringify({ session_id: "on-real-pg", agent_id: "dev" }),
      });
      expect(created.status).toBe(201);
      expect(await direct.query(`SELECT session_id FROM "${direct.schema}".agno_sessions`)).toEqual([
        { session_id: "on-real-pg" },
      ]);
    } finally {
      await dev.stop();
      await direct.close();
    }
  });
});
