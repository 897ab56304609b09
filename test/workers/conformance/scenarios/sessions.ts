import { env } from "cloudflare:workers";
import { Pool } from "@neondatabase/serverless";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Env } from "../../../../src/index.js";
import { useLocalWsProxy } from "../../../../src/db/postgres/local-proxy.js";
import { legacyInsertSQL, legacySessionsDDL, makeLegacySession } from "../../../fixtures/legacy-2x.js";
import { syntheticJpeg } from "../../../support/media-jpeg.js";
import { call, JSON_BODY, modelEnv, parseSse, send } from "../../worker-client.js";
import { conformingCall } from "../check.js";

const tag = crypto.randomUUID().slice(0, 8);
const USER = `conf-sessions-${tag}`;
const json = (method: string, body: unknown): RequestInit => ({
  method,
  headers: JSON_BODY,
  body: JSON.stringify(body),
});
/** Fields a run listing (agno's `response_model_exclude_none`) never holds: none is null. */
const noNulls = (o: Record<string, unknown>) => Object.entries(o).filter(([, v]) => v === null);

/**
 * `/sessions` and everything under it, with sessions made by real agent runs against the scripted
 * model (answered, paused for a confirmation and continued, streamed, with an uploaded image),
 * sessions made over `POST /sessions`, and agno 2.x sessions read before and after migration.
 */
export function sessionsScenarios(): void {
  let E: Partial<Env>;
  const ids = { chat: "", paused: "", pausedRun: "", firstRun: "", media: "", mediaKey: "" };

  beforeAll(async () => {
    const model = await modelEnv([
      { text: "Hi! How can I help?" },
      { toolCalls: [{ id: "call_note", name: "save_note", arguments: { note: "buy milk" } }] },
      { text: "Saved your note." },
      { text: "A grey square." },
      { text: "Noted." },
    ]);
    E = model.env;
    const asked = await call(
      "/agents/assistant/runs",
      json("POST", { message: "Hello there, what can you do?", stream: false, user_id: USER }),
      E,
    );
    expect(asked.status).toBe(200);
    ids.chat = asked.body.session_id;
    ids.firstRun = asked.body.run_id;
    // A second run in the same session pauses for a confirmation, and is continued.
    const paused = await call(
      "/agents/assistant/runs",
      json("POST", { message: "Remember milk", stream: false, session_id: ids.chat, user_id: USER }),
      E,
    );
    expect(paused.body).toMatchObject({ status: "PAUSED" });
    ids.pausedRun = paused.body.run_id;
    const tools = (paused.body.tools as Array<Record<string, unknown>>).map((t) => ({ ...t, confirmed: true }));
    const continued = await send(
      `/agents/assistant/runs/${ids.pausedRun}/continue`,
      {
        method: "POST",
        body: new URLSearchParams({ tools: JSON.stringify(tools), session_id: ids.chat, user_id: USER }).toString(),
        headers: { "content-type": "application/x-www-form-urlencoded" },
      },
      E,
    );
    expect(parseSse(await continued.text()).at(-1)?.event).toBe("RunCompleted");
    // A streamed run with an uploaded image, in a session of its own.
    const upload = new FormData();
    upload.set("message", "What is in this picture?");
    upload.set("user_id", USER);
    upload.append("files", new File([syntheticJpeg(4_000, 3)], "square.jpg", { type: "image/jpeg" }));
    const streamed = parseSse(await (await send("/agents/assistant/runs", { method: "POST", body: upload }, E)).text());
    const completed = streamed.at(-1)!;
    expect(completed.event).toBe("RunCompleted");
    ids.media = String(completed.data.session_id);
  });

  it("GET /sessions lists every type by default, each agno's SessionSchema, named after its first message", async () => {
    await conformingCall("/sessions", json("POST", { session_type: "team", team_id: `team-${tag}`, user_id: USER }));
    // A session made without a name, then run in: agno names it after the run's message.
    const unnamed = `conf-unnamed-${tag}`;
    await conformingCall(
      "/sessions",
      json("POST", { session_id: unnamed, session_type: "agent", agent_id: "assistant", user_id: USER }),
    );
    const noted = await call(
      "/agents/assistant/runs",
      json("POST", { message: "Note that the sky is blue", stream: false, session_id: unnamed, user_id: USER }),
      E,
    );
    expect(noted.body).toMatchObject({ status: "COMPLETED", content: "Noted." });
    const { status, body } = await conformingCall(`/sessions?user_id=${USER}&sort_order=asc`);
    expect(status).toBe(200);
    expect(body.meta).toMatchObject({ page: 1, limit: 20, total_count: 4, total_pages: 1 });
    expect(body.data.map((s: { session_type: string }) => s.session_type).sort()).toEqual([
      "agent",
      "agent",
      "agent",
      "team",
    ]);
    expect(body.data.find((s: { session_id: string }) => s.session_id === unnamed).session_name).toBe(
      "Note that the sky is blue",
    );
    const chat = body.data.find((s: { session_id: string }) => s.session_id === ids.chat);
    expect(chat).toMatchObject({
      session_name: "Hello there, what can you do?",
      agent_id: "assistant",
      user_id: USER,
      session_state: expect.any(Object),
    });
    expect(noNulls(chat)).toEqual([]);
    // A session with no stored name and no runs is named "", as agno names it.
    expect(body.data.find((s: { session_type: string }) => s.session_type === "team")).toMatchObject({
      session_name: "",
    });
    const teams = await conformingCall(`/sessions?user_id=${USER}&type=team`);
    expect(teams.body.data.map((s: { session_type: string }) => s.session_type)).toEqual(["team"]);
    expect((await conformingCall(`/sessions?type=robot`)).status).toBe(422);
    expect((await conformingCall(`/sessions?db_id=nowhere`)).status).toBe(404);
  });

  it("GET /sessions/{id}/runs answers RunSchemas with run_input, input_media and the rest derived as agno derives them", async () => {
    const { status, body } = await conformingCall(`/sessions/${ids.chat}/runs`);
    expect(status).toBe(200);
    expect(body.map((r: { run_id: string }) => r.run_id)).toEqual([ids.firstRun, ids.pausedRun]);
    const [first, second] = body;
    expect(first).toMatchObject({
      run_id: ids.firstRun,
      agent_id: "assistant",
      user_id: USER,
      status: "COMPLETED",
      run_input: "Hello there, what can you do?",
      content: "Hi! How can I help?",
      run_response_format: "text",
      input_media: { images: [], videos: [], audios: [], files: [] },
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    });
    expect(noNulls(first)).toEqual([]);
    expect(second).toMatchObject({ run_input: "Remember milk", status: "COMPLETED", content: "Saved your note." });
    expect(second.tools).toEqual([
      expect.objectContaining({ tool_name: "save_note", requires_confirmation: true, result: "saved (1 notes)" }),
    ]);
    // created_after / created_before are epoch seconds, inclusive.
    const at = Math.floor(new Date(first.created_at).getTime() / 1000);
    const after = await conformingCall(`/sessions/${ids.chat}/runs?created_after=${at + 3600}`);
    expect(after.body).toEqual([]);
    const before = await conformingCall(`/sessions/${ids.chat}/runs?created_before=${at + 3600}&created_after=${at}`);
    expect(before.body).toHaveLength(2);
    expect((await conformingCall(`/sessions/${ids.chat}/runs?created_after=soon`)).status).toBe(422);
    expect((await conformingCall(`/sessions/no-such-${tag}/runs`)).status).toBe(404);
  });

  it("GET /sessions/{id}/runs/{run_id} answers one RunSchema with every field, None as null", async () => {
    const { status, body } = await conformingCall(`/sessions/${ids.chat}/runs/${ids.pausedRun}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ run_id: ids.pausedRun, run_input: "Remember milk", session_state: expect.anything() });
    expect(body).toHaveProperty("response_audio", null);
    expect(body).toHaveProperty("forked_from_run_id", null);
    expect((await conformingCall(`/sessions/${ids.chat}/runs/no-such-run`)).status).toBe(404);
  });

  it("GET /sessions/{id} answers AgentSessionDetailSchema with the chat history of every run, the paused one too", async () => {
    const { status, body } = await conformingCall(`/sessions/${ids.chat}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ session_id: ids.chat, agent_session_id: ids.chat, agent_id: "assistant" });
    expect(body.chat_history.map((m: { role: string }) => m.role)).not.toContain("system");
    expect(body.chat_history.map((m: { content?: string }) => m.content)).toEqual(
      expect.arrayContaining(["Hello there, what can you do?", "Hi! How can I help?", "Remember milk"]),
    );
    expect(noNulls(body)).toEqual([]);
    expect((await conformingCall(`/sessions/${ids.chat}?type=team`)).status).toBe(404);
    expect((await conformingCall(`/sessions/no-such-${tag}`)).status).toBe(404);
  });

  it("GET /sessions/{id}/media/{storage_key} serves a run's image by its key as a path", async () => {
    const runs = await conformingCall(`/sessions/${ids.media}/runs`);
    const image = runs.body[0].input_media.images[0];
    expect(runs.body[0].run_input).toBe("What is in this picture?");
    const key = image.media_reference.storage_key as string;
    expect(key).toMatch(/^media\/[0-9a-f]{64}$/);
    const res = await conformingCall(`/sessions/${ids.media}/media/${key}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/jpeg");
    expect((await conformingCall(`/sessions/${ids.media}/media/${encodeURIComponent(key)}`)).status).toBe(200);
    expect((await conformingCall(`/sessions/${ids.chat}/media/${key}`)).status).toBe(404);
    expect((await conformingCall(`/sessions/${ids.media}/media/media/${"0".repeat(64)}`)).status).toBe(404);
    expect((await conformingCall(`/sessions/${ids.media}/media/media%2F..%2F${key}`)).status).toBe(422);
  });

  it("POST /sessions, rename, PATCH and the deletes answer agno's shapes and errors", async () => {
    const id = `conf-made-${tag}`;
    const made = await conformingCall(
      "/sessions?type=agent",
      json("POST", { session_id: id, agent_id: "assistant", session_state: { step: 1 }, user_id: USER }),
    );
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ session_id: id, session_name: "", session_state: { step: 1 } });
    expect((await conformingCall("/sessions", json("POST", { session_id: id, agent_id: "assistant" }))).status).toBe(
      409,
    );
    expect((await conformingCall("/sessions", json("POST", { agent_id: 7 }))).status).toBe(422);
    const renamed = await conformingCall(`/sessions/${id}/rename`, json("POST", { session_name: "Groceries" }));
    expect(renamed.body).toMatchObject({ session_name: "Groceries", session_summary: null, total_tokens: null });
    expect((await conformingCall(`/sessions/${id}/rename`, json("POST", { session_name: "" }))).status).toBe(422);
    const patched = await conformingCall(`/sessions/${id}`, json("PATCH", { metadata: { tag: "x" } }));
    expect(patched.body).toMatchObject({
      session_name: "Groceries",
      metadata: { tag: "x" },
      session_state: { step: 1 },
    });
    expect((await conformingCall(`/sessions/no-such-${tag}`, json("PATCH", { metadata: {} }))).status).toBe(404);

    expect((await conformingCall(`/sessions/${ids.chat}/runs/${ids.firstRun}`, { method: "DELETE" })).status).toBe(204);
    expect((await conformingCall(`/sessions/${ids.chat}/runs/${ids.firstRun}`, { method: "DELETE" })).status).toBe(404);
    const left = await conformingCall(`/sessions/${ids.chat}/runs`);
    expect(left.body.map((r: { run_id: string }) => r.run_id)).toEqual([ids.pausedRun]);

    const pair = { session_ids: [id, ids.chat], session_types: ["agent"] };
    expect((await conformingCall("/sessions", json("DELETE", pair))).status).toBe(400);
    expect(
      (await conformingCall("/sessions", json("DELETE", { session_ids: [id], session_types: ["agent"] }))).status,
    ).toBe(204);
    expect((await conformingCall(`/sessions/${ids.chat}`, { method: "DELETE" })).status).toBe(204);
    expect((await conformingCall(`/sessions/${ids.chat}`, { method: "DELETE" })).status).toBe(404);
  });

  legacyScenarios();
}

/** agno 2.x sessions (runs in the session row's blob), read before and after the migration. */
function legacyScenarios(): void {
  const schema = `conf_legacy_${tag.replace(/-/g, "")}`;
  const legacy: Partial<Env> = { AGNO_DB_SCHEMA: schema };
  const t0 = 1_750_000_000;
  const rows = [
    makeLegacySession({ sessionId: `old-agent-${tag}`, kind: "agent", runs: 2, userId: "zoe", createdAt: t0 }),
    makeLegacySession({ sessionId: `old-team-${tag}`, kind: "team", runs: 2, userId: "zoe", createdAt: t0 + 1000 }),
    makeLegacySession({ sessionId: `old-flow-${tag}`, kind: "workflow", runs: 1, userId: "zoe", createdAt: t0 + 2000 }),
  ];
  let pool: Pool;
  beforeAll(async () => {
    useLocalWsProxy(env.DB_WS_PROXY);
    pool = new Pool({ connectionString: env.DATABASE_URL });
    for (const statement of legacySessionsDDL(schema)) await pool.query(statement);
    for (const row of rows) {
      const insert = legacyInsertSQL(schema, row);
      await pool.query(insert.text, insert.values);
    }
  });
  afterAll(async () => {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });

  const names = {
    agent: (row: (typeof rows)[number]) => `Question 0 for agent-${row.session_id}`,
    team: () => "Team question 0",
    workflow: () => "Workflow input 0",
  };

  async function checkLegacy(when: string) {
    const list = await conformingCall("/sessions?user_id=zoe&sort_order=asc", {}, legacy);
    expect(list.status, when).toBe(200);
    expect(
      list.body.data.map((s: { session_id: string; session_name: string }) => [s.session_id, s.session_name]),
      when,
    ).toEqual(rows.map((r) => [r.session_id, names[r.session_type](r)]));
    expect(list.body.data[0]).toMatchObject({ total_tokens: expect.any(Number), session_summary: expect.any(Object) });
    const [agent, team, flow] = rows;
    const detail = await conformingCall(`/sessions/${agent!.session_id}`, {}, legacy);
    expect(detail.body.session_name).toBe(names.agent(agent!));
    const teamDetail = await conformingCall(`/sessions/${team!.session_id}`, {}, legacy);
    expect(teamDetail.body).toMatchObject({ team_id: team!.team_id, session_name: "Team question 0" });
    const flowDetail = await conformingCall(`/sessions/${flow!.session_id}`, {}, legacy);
    expect(flowDetail.body).toMatchObject({ workflow_id: flow!.workflow_id, session_name: "Workflow input 0" });
    // A team session's runs: the members' as RunSchema, the team's own as TeamRunSchema.
    const teamRuns = await conformingCall(`/sessions/${team!.session_id}/runs`, {}, legacy);
    expect(
      teamRuns.body.filter((r: { team_id?: string }) => r.team_id).map((r: { run_input: string }) => r.run_input),
    ).toEqual(["Team question 0", "Team question 1"]);
    expect(teamRuns.body.filter((r: { agent_id?: string }) => r.agent_id).length).toBeGreaterThan(0);
    const flowRuns = await conformingCall(`/sessions/${flow!.session_id}/runs`, {}, legacy);
    expect(flowRuns.body).toEqual([
      expect.objectContaining({ workflow_id: flow!.workflow_id, run_input: "Workflow input 0", status: "COMPLETED" }),
    ]);
    const one = await conformingCall(`/sessions/${agent!.session_id}/runs/${agent!.session_id}-run-1`, {}, legacy);
    expect(one.body).toMatchObject({ run_input: `Question 1 for agent-${agent!.session_id}`, parent_run_id: "" });
  }

  it("agno 2.x sessions are named after their first message, before and after migration", async () => {
    await checkLegacy("before migration");
    const migrated = await call("/databases/all/migrate", { method: "POST" }, legacy);
    expect(migrated.status).toBe(200);
    await checkLegacy("after migration");
  });
}
