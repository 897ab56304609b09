import { env } from "cloudflare:workers";
import { Pool } from "@neondatabase/serverless";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useLocalWsProxy } from "../../src/db/postgres/local-proxy.js";
import { legacyInsertSQL, legacySessionsDDL, makeLegacySession } from "../fixtures/legacy-2x.js";
import { call, codeDefinedOnly, KEY, JSON_BODY } from "./worker-client.js";

function sql(schema: string) {
  useLocalWsProxy(env.DB_WS_PROXY);
  const pool = new Pool({ connectionString: env.DATABASE_URL });
  return {
    run: async (text: string, values: unknown[] = []) => (await pool.query(text, values)).rows,
    drop: async () => {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    },
  };
}

describe("AgentOS over HTTP", () => {
  it("answers /, /health and /info without credentials, everything else only with them", async () => {
    expect((await call("/", {}, {}, {})).status).toBe(200);
    expect((await call("/health", {}, {}, {})).body).toMatchObject({ status: "ok" });
    const info = await call("/info", {}, {}, {});
    expect(info.body).toMatchObject({ os_id: "agno-edge", os_version: expect.any(String), auth_mode: "security_key" });
    const anonymous = await call("/config", {}, {}, {});
    expect(anonymous).toMatchObject({ status: 401, body: { error_id: "unauthorized", detail: expect.any(String) } });
    expect((await call("/config", {}, {}, { authorization: "Bearer wrong" })).status).toBe(401);
    expect((await call("/sessions", {}, {}, { authorization: `Basic ${KEY}` })).status).toBe(401);
    const config = await call("/config");
    // Components other files store in the shared database are listed too: the code-defined ones are checked.
    expect(await codeDefinedOnly(config.body.agents)).toMatchObject([{ id: "assistant", db_id: "default" }]);
    expect(config.body).toMatchObject({
      databases: ["default"],
      os_database: "default",
      // The suite's env sets every platform's secrets (vitest.config.ts); A2A is always on.
      interfaces: [
        { type: "agui", version: expect.any(String), route: "" },
        { type: "slack", version: expect.any(String), route: "/slack" },
        { type: "telegram", version: expect.any(String), route: "/telegram" },
        { type: "whatsapp", version: expect.any(String), route: "/whatsapp" },
        { type: "a2a", version: expect.any(String), route: "/a2a" },
      ],
      available_models: expect.arrayContaining([{ id: "gpt-test", provider: "openai" }]),
    });
  });

  it("stays closed when no auth is configured, and opens only on an explicit AGNO_AUTH=none", async () => {
    const closed = await call("/sessions", {}, { OS_SECURITY_KEY: undefined });
    expect(closed.status).toBe(401);
    expect(closed.body.detail).toMatch(/OS_SECURITY_KEY/);
    expect((await call("/sessions", {}, { OS_SECURITY_KEY: undefined, AGNO_AUTH: "none" }, {})).status).toBe(200);
  });

  it("creates, lists, renames, reads and deletes sessions in agno's shapes", async () => {
    const created = await call("/sessions", {
      method: "POST",
      headers: JSON_BODY,
      body: JSON.stringify({
        session_type: "agent",
        agent_id: "helper",
        user_id: "ann-sessions",
        session_name: "First",
      }),
    });
    expect(created.status).toBe(201);
    const id = created.body.session_id as string;
    // agno's AgentSessionDetailSchema, None fields left out (response_model_exclude_none).
    expect(created.body).toEqual({
      user_id: "ann-sessions",
      session_name: "First",
      agent_id: "helper",
      agent_session_id: id,
      session_id: id,
      metrics: {},
      chat_history: [],
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    const list = await call("/sessions?type=agent&user_id=ann-sessions&limit=5&page=1");
    expect(list.body.meta).toMatchObject({ page: 1, limit: 5, total_count: 1, total_pages: 1 });
    expect(list.body.data.map((s: { session_id: string }) => s.session_id)).toEqual([id]);
    expect(list.body.data[0]).toEqual({
      session_id: id,
      session_name: "First",
      session_type: "agent",
      user_id: "ann-sessions",
      agent_id: "helper",
      created_at: created.body.created_at,
      updated_at: created.body.updated_at,
    });
    expect(
      (
        await call(`/sessions/${id}/rename`, {
          method: "POST",
          headers: JSON_BODY,
          body: JSON.stringify({ session_name: "Renamed" }),
        })
      ).body.session_name,
    ).toBe("Renamed");
    expect((await call(`/sessions/${id}/runs`)).body).toEqual([]);
    expect((await call(`/sessions/${id}?user_id=someone-else`)).status).toBe(404);
    expect((await call(`/sessions/${id}`, { method: "DELETE" })).status).toBe(204);
    expect((await call(`/sessions/${id}`)).status).toBe(404);
    expect(
      (
        await call("/sessions/never-made", {
          method: "PATCH",
          headers: JSON_BODY,
          body: JSON.stringify({ session_name: "x" }),
        })
      ).status,
    ).toBe(404);
    await call("/sessions", {
      method: "POST",
      headers: JSON_BODY,
      body: JSON.stringify({ session_id: "patch-me", agent_id: "helper" }),
    });
    const updated = await call("/sessions/patch-me", {
      method: "PATCH",
      headers: JSON_BODY,
      body: JSON.stringify({ session_name: "Patched", session_state: { step: 2 }, metadata: { tag: "x" } }),
    });
    expect(updated.body).toMatchObject({ session_name: "Patched", session_state: { step: 2 }, metadata: { tag: "x" } });
    expect(
      (await call("/sessions/patch-me", { method: "PATCH", headers: JSON_BODY, body: JSON.stringify({ owner: "me" }) }))
        .status,
    ).toBe(422);
    await call("/sessions", {
      method: "POST",
      headers: JSON_BODY,
      body: JSON.stringify({ session_id: "bulk-1", agent_id: "helper" }),
    });
    const partial = await call("/sessions", {
      method: "DELETE",
      headers: JSON_BODY,
      body: JSON.stringify({ session_ids: ["bulk-1", "patch-me", "missing-one"] }),
    });
    expect(partial).toMatchObject({ status: 404, body: { detail: expect.stringMatching(/missing-one/) } });
    expect((await call("/sessions/bulk-1")).status).toBe(200); // all or nothing
    expect(
      (
        await call("/sessions", {
          method: "DELETE",
          headers: JSON_BODY,
          body: JSON.stringify({ session_ids: ["bulk-1", "patch-me"] }),
        })
      ).status,
    ).toBe(204);
    expect((await call("/sessions/patch-me")).status).toBe(404);
    const duplicate = {
      method: "POST",
      headers: JSON_BODY,
      body: JSON.stringify({ session_id: "dup-1", agent_id: "helper" }),
    };
    expect((await call("/sessions", duplicate)).status).toBe(201);
    expect((await call("/sessions", duplicate)).body).toMatchObject({ error_id: "conflict" });
  });

  it("answers bad input with a 4xx that names the problem, never a 500", async () => {
    const cases: Array<[string, RequestInit, number, RegExp]> = [
      ["/sessions", { method: "POST", headers: JSON_BODY, body: "{not json" }, 422, /not valid JSON/],
      [
        "/sessions",
        { method: "POST", headers: JSON_BODY, body: JSON.stringify({ session_type: "agent" }) },
        422,
        /agent_id/,
      ],
      ["/sessions", { method: "POST", headers: JSON_BODY, body: JSON.stringify({ agent_id: 7 }) }, 422, /agent_id/],
      [
        "/sessions",
        { method: "POST", headers: JSON_BODY, body: JSON.stringify({ agent_id: "a", surprise: 1 }) },
        422,
        /surprise|unrecognized/i,
      ],
      ["/sessions?limit=abc", {}, 422, /limit/],
      ["/sessions?page=0", {}, 422, /page/],
      ["/sessions?limit=100000", {}, 422, /limit/],
      ["/sessions?sort_order=sideways", {}, 422, /sort_order/],
      ["/sessions?db_id=nope", {}, 404, /nope/],
      ["/sessions/unknown-session/runs", {}, 404, /unknown-session/],
      ["/sessions/unknown/runs/unknown", {}, 404, /unknown/],
      [
        "/sessions/x/rename",
        { method: "POST", headers: JSON_BODY, body: JSON.stringify({ session_name: "" }) },
        422,
        /session_name/,
      ],
      ["/no/such/route", {}, 404, /no route/],
      ["/databases/nope/migrate", { method: "POST" }, 404, /nope/],
      ["/databases/default/migrate?target_version=9.9.9", { method: "POST" }, 422, /9\.9\.9/],
      [
        "/sessions",
        {
          method: "POST",
          headers: JSON_BODY,
          body: JSON.stringify({ agent_id: "a", metadata: { pad: "x".repeat(2 * 1024 * 1024) } }),
        },
        413,
        /larger than/,
      ],
    ];
    for (const [path, init, status, detail] of cases) {
      const res = await call(path, init);
      expect({ path, status: res.status }).toEqual({ path, status });
      expect(res.body.detail).toMatch(detail);
      expect(typeof res.body.error_id).toBe("string");
    }
  });

  it("limits chunked bodies (no content-length) and oversized heads before parsing", async () => {
    const chunks = Array.from({ length: 40 }, () => new TextEncoder().encode(`"${"x".repeat(32 * 1024)}",`));
    const chunked = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next) controller.enqueue(next);
        else controller.close();
      },
    });
    const res = await call("/sessions", {
      method: "POST",
      headers: JSON_BODY,
      body: chunked,
      duplex: "half",
    } as RequestInit);
    expect(res).toMatchObject({ status: 413, body: { error_id: "payload_too_large" } });
    expect(chunks.length).toBeGreaterThan(0); // refused before the whole body was read
    const bigHeader = await call("/sessions", { headers: { "x-padding": "p".repeat(20 * 1024) } });
    expect(bigHeader).toMatchObject({ status: 431, body: { error_id: "headers_too_large" } });
    const bigUrl = await call(`/sessions?session_name=${"n".repeat(20 * 1024)}`);
    expect(bigUrl.status).toBe(431);
  });

  describe("an agno 2.x database", () => {
    const schema = `legacy_http_${Date.now().toString(36)}`;
    const db = sql(schema);
    const legacyEnv = { AGNO_DB_SCHEMA: schema };
    const row = makeLegacySession({ sessionId: "old-chat", kind: "team", runs: 2, userId: "zoe" });
    beforeAll(async () => {
      for (const statement of legacySessionsDDL(schema)) await db.run(statement);
      const insert = legacyInsertSQL(schema, row);
      await db.run(insert.text, insert.values);
    });
    afterAll(() => db.drop());

    it("reads before migration, asks for migration where a write needs it, and migrates over HTTP", async () => {
      const runs = await call("/sessions/old-chat/runs", {}, legacyEnv);
      expect(runs.body.map((r: { run_id: string }) => r.run_id)).toEqual(row.runs!.map((r) => r.run_id));
      const blocked = await call("/sessions/old-chat/runs/old-chat-run-0", { method: "DELETE" }, legacyEnv);
      expect(blocked.status).toBe(503);
      expect(blocked.body).toMatchObject({
        error_id: "migration_required_error",
        detail: expect.stringMatching(/migrate/),
      });
      const before = await call("/databases", {}, legacyEnv);
      expect(before).toMatchObject({ status: 200, body: [{ db_id: "default", state: "migration_required" }] });
      const migrated = await call("/databases/all/migrate", { method: "POST" }, legacyEnv);
      expect(migrated).toMatchObject({
        status: 200,
        body: { message: "All databases migrated successfully to latest version" },
      });
      expect((await call("/databases", {}, legacyEnv)).body).toEqual([
        { db_id: "default", schema_version: "3.0.9", latest_version: "3.0.9", state: "current" },
      ]);
      // agno's answer is the message alone; what the migration did shows in the rows it copied.
      expect(Object.keys(migrated.body)).toEqual(["message"]);
      const copied = async () =>
        (await db.run(`SELECT run_id FROM "${schema}".agno_runs WHERE session_id = 'old-chat' ORDER BY run_id`)).map(
          (r) => r.run_id as string,
        );
      expect(await copied()).toEqual(row.runs!.map((r) => r.run_id).sort());
      expect((await call("/sessions/old-chat/runs/old-chat-run-0", { method: "DELETE" }, legacyEnv)).status).toBe(204);
      const after = await call("/sessions/old-chat/runs", {}, legacyEnv);
      expect(after.body.map((r: { run_id: string }) => r.run_id)).toEqual(
        row.runs!.map((r) => r.run_id).filter((id) => id !== "old-chat-run-0"),
      );
      const again = await call(
        "/databases/default/migrate",
        { method: "POST", headers: JSON_BODY, body: JSON.stringify({ target_version: "3.0.0" }) },
        legacyEnv,
      );
      expect(again).toMatchObject({
        status: 200,
        body: { message: "Database migrated successfully to version 3.0.9" },
      });
      // Migrated already: nothing copied again (the deleted run stays deleted).
      expect(await copied()).toEqual(after.body.map((r: { run_id: string }) => r.run_id).sort());
    });
  });

  describe("a database ahead of the code", () => {
    const schema = `ahead_http_${Date.now().toString(36)}`;
    const db = sql(schema);
    beforeAll(async () => {
      await db.run(`CREATE SCHEMA "${schema}"`);
      await db.run(
        `CREATE TABLE "${schema}".agno_schema_versions (table_name varchar primary key, version varchar not null, created_at varchar not null, updated_at varchar)`,
      );
      await db.run(`INSERT INTO "${schema}".agno_schema_versions VALUES ('agno_sessions', '4.0.0', 'now', null)`);
    });
    afterAll(() => db.drop());

    it("answers schema_mismatch_error instead of guessing", async () => {
      const res = await call("/sessions", {}, { AGNO_DB_SCHEMA: schema });
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ error_id: "schema_mismatch_error", detail: expect.stringMatching(/4\.0\.0/) });
    });
  });
});
