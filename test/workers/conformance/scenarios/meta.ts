import { codeDefinedOnly } from "../../worker-client.js";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { expect, it, vi } from "vitest";
import { Agent } from "../../../../src/agent/agent.js";
import { MemoryDb } from "../../../../src/db/memory/memory-db.js";
import type { Model } from "../../../../src/models/model.js";
import { AGNO_EDGE_VERSION, AGNO_VERSION, AgentOS } from "../../../../src/os/agent-os.js";
import type { AuthConfig } from "../../../../src/os/auth/middleware.js";
import { agnoErrorSchema } from "../../../../src/os/wire/errors.js";
import { isolatedJwt, send } from "../../worker-client.js";
import { checkAnswer, conformingCall } from "../check.js";

/** pydantic v2's JSON for a UTC datetime: `Z`, and microseconds unless the time is a whole second. */
const PYDANTIC_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{6})?Z$/;

/** A model as `/config` sees one: its id and provider (these agents are described, never run). */
const described = (provider: string, id: string): Model => ({
  id,
  provider,
  // eslint-disable-next-line require-yield -- never streamed: the routes here only describe agents
  async *stream() {
    throw new Error("not run");
  },
});

/** An AgentOS built with the SDK, answered inside workerd over one in-memory database, each answer checked. */
function sdkOs(agents: Agent[], auth: AuthConfig, extra: { description?: string; dbs?: MemoryDb[] } = {}) {
  const os = new AgentOS({ id: "sdk-os", name: "SDK OS", description: extra.description, agents, auth });
  return async (path: string, headers: Record<string, string> = {}) => {
    const ctx = createExecutionContext();
    const res = await os.fetch(
      new Request(`http://os.test${path}`, { headers }),
      { dbs: extra.dbs ?? [new MemoryDb()] },
      ctx,
    );
    const text = await res.text();
    await waitOnExecutionContext(ctx);
    checkAnswer("GET", path, res.status, res.headers.get("content-type") ?? "", text);
    return { status: res.status, body: JSON.parse(text) as Record<string, unknown> };
  };
}

/** `/`, `/health`, `/info`, `/config`, `/openapi.json`, `/docs`, and the error body every route answers with. */
export function metaScenarios(): void {
  it("GET / is agno's landing answer: the name and where health, info and docs are", async () => {
    const { status, body } = await conformingCall("/", {}, {}, {});
    expect(status).toBe(200);
    expect(body).toEqual({ name: expect.any(String), health: "/health", info: "/info", docs: "/docs" });
  });

  it("GET /health is agno's HealthResponse, instantiated_at written as pydantic writes a UTC datetime", async () => {
    const before = Date.now();
    const { status, body } = await conformingCall("/health", {}, {}, {});
    expect(status).toBe(200);
    expect(body.status).toBe("ok");
    expect(body.instantiated_at).toMatch(PYDANTIC_UTC);
    expect(new Date(body.instantiated_at).getTime()).toBeLessThanOrEqual(before);
    expect(body.databases).toEqual([{ id: "default", status: "ok" }]);
    // The same instant on every answer: when the instance started, not when it was asked.
    expect((await conformingCall("/health", {}, {}, {})).body.instantiated_at).toBe(body.instantiated_at);
  });

  it("GET /health writes the start as agno does: microseconds, and no fraction on a whole second", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(Date.UTC(2026, 0, 2, 3, 4, 5, 678));
      const fraction = sdkOs([], { mode: "none" });
      vi.setSystemTime(Date.UTC(2026, 0, 2, 3, 4, 5));
      const whole = sdkOs([], { mode: "none" });
      vi.useRealTimers();
      expect((await fraction("/health")).body.instantiated_at).toBe("2026-01-02T03:04:05.678000Z");
      expect((await whole("/health")).body.instantiated_at).toBe("2026-01-02T03:04:05Z");
    } finally {
      vi.useRealTimers();
    }
  });

  it("GET /health of a misconfigured deployment still conforms, and says which setting is wrong", async () => {
    const { status, body } = await conformingCall("/health", {}, { AGNO_SSE_PING_SECONDS: "soon" }, {});
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: "misconfigured", databases: [] });
    expect(body.detail).toContain("AGNO_SSE_PING_SECONDS");
    expect(body.instantiated_at).toMatch(PYDANTIC_UTC);
  });

  it("GET /info is agno's InfoResponse: versions, counts, MCP and the auth mode clients must use", async () => {
    const { status, body } = await conformingCall("/info", {}, {}, {});
    expect(status).toBe(200);
    expect(body).toEqual({
      os_id: "agno-edge",
      name: expect.any(String),
      os_version: AGNO_EDGE_VERSION,
      agno_version: AGNO_VERSION,
      agent_count: 1,
      team_count: 1,
      workflow_count: 1,
      mcp: { enabled: true, path: "/mcp", oauth: null },
      auth_mode: "security_key",
    });
    const open = await conformingCall("/info", {}, { OS_SECURITY_KEY: undefined, AGNO_AUTH: "none" }, {});
    expect(open.body.auth_mode).toBe("none");
    const jwt = await isolatedJwt("meta-info");
    expect((await conformingCall("/info", {}, jwt.env, {})).body.auth_mode).toBe("jwt");
    // No credentials configured at all: closed, so not "none" (which would tell clients to send nothing).
    expect((await conformingCall("/info", {}, { OS_SECURITY_KEY: undefined }, {})).body.auth_mode).toBe("security_key");
  });

  it("GET /config is agno's ConfigResponse: models as {id, provider}, databases and the domain blocks", async () => {
    const answer = await conformingCall("/config");
    const { status } = answer;
    // Components other files store in the shared database are listed too (and checked by the schema above): the code-defined ones are compared.
    const body = {
      ...answer.body,
      agents: await codeDefinedOnly(answer.body.agents),
      teams: await codeDefinedOnly(answer.body.teams),
      workflows: await codeDefinedOnly(answer.body.workflows),
    };
    expect(status).toBe(200);
    expect(body).toEqual({
      os_id: "agno-edge",
      name: expect.any(String),
      available_models: [{ id: "gpt-test", provider: "openai" }],
      os_database: "default",
      databases: ["default"],
      session: { dbs: [{ db_id: "default", domain_config: { display_name: "default" } }] },
      metrics: { dbs: [{ db_id: "default", domain_config: { display_name: "default" }, tables: ["agno_metrics"] }] },
      memory: { dbs: [{ db_id: "default", domain_config: { display_name: "default" }, tables: ["agno_memories"] }] },
      learning: {
        dbs: [{ db_id: "default", domain_config: { display_name: "default" }, tables: ["agno_learnings"] }],
      },
      // The example assistant's knowledge base (embedded with MODEL's provider's embedding model).
      knowledge: {
        dbs: [{ db_id: "default", domain_config: { display_name: "default" }, tables: ["agno_knowledge"] }],
        knowledge_instances: [
          {
            id: "assistant-knowledge",
            name: "Assistant knowledge",
            description: expect.any(String),
            db_id: "default",
            table: "agno_knowledge",
          },
        ],
      },
      evals: { dbs: [{ db_id: "default", domain_config: { display_name: "default" }, tables: ["agno_eval_runs"] }] },
      traces: { dbs: [{ db_id: "default", domain_config: { display_name: "default" } }] },
      agents: [
        {
          id: "assistant",
          name: "Assistant",
          description: expect.stringMatching(/assistant/),
          db_id: "default",
          model: { id: "gpt-test", provider: "openai" },
        },
      ],
      // The example's team and workflow, as agno's TeamSummaryResponse and WorkflowSummaryResponse.
      teams: [
        {
          id: "writing-desk",
          name: "Writing desk",
          description: expect.stringMatching(/researcher and a writer/),
          db_id: "default",
          mode: "coordinate",
          model: { id: "gpt-test", provider: "openai" },
        },
      ],
      workflows: [
        {
          id: "blog-post",
          name: "Blog post",
          description: expect.stringMatching(/Research a topic/),
          db_id: "default",
          is_factory: false,
          is_component: false,
        },
      ],
      // agno's InterfaceResponse for each chat interface the suite's env turns on, then A2A (always on).
      interfaces: [
        { type: "agui", version: "1.0", route: "" },
        { type: "slack", version: "1.0", route: "/slack" },
        { type: "telegram", version: "1.0", route: "/telegram" },
        { type: "whatsapp", version: "1.0", route: "/whatsapp" },
        { type: "a2a", version: "1.0", route: "/a2a" },
      ],
    });
  });

  it("GET /config lists each model once, leaves out what an agent does not set, and names every database", async () => {
    const gpt = described("openai", "gpt-4.1-mini");
    const fetch = sdkOs(
      [
        new Agent({ id: "a", name: "A", model: gpt }),
        new Agent({ id: "b", model: described("openai", "gpt-4.1-mini") }),
        new Agent({ id: "c", description: "Claude", model: described("anthropic", "claude-sonnet-4-5") }),
      ],
      { mode: "none" },
      { description: "Three agents", dbs: [new MemoryDb({ id: "main" }), new MemoryDb({ id: "archive" })] },
    );
    const { body } = await fetch("/config");
    expect(body).toMatchObject({
      os_id: "sdk-os",
      name: "SDK OS",
      description: "Three agents",
      available_models: [
        { id: "gpt-4.1-mini", provider: "openai" },
        { id: "claude-sonnet-4-5", provider: "anthropic" },
      ],
      os_database: "main",
      databases: ["main", "archive"],
      session: {
        dbs: [
          { db_id: "main", domain_config: { display_name: "main" } },
          { db_id: "archive", domain_config: { display_name: "archive" } },
        ],
      },
      // every database holds learnings, under the table it names
      learning: {
        dbs: [
          { db_id: "main", domain_config: { display_name: "main" }, tables: ["agno_learnings"] },
          { db_id: "archive", domain_config: { display_name: "archive" }, tables: ["agno_learnings"] },
        ],
      },
      // every database holds eval runs, as agno's _get_evals_config lists them
      evals: {
        dbs: [
          { db_id: "main", domain_config: { display_name: "main" }, tables: ["agno_eval_runs"] },
          { db_id: "archive", domain_config: { display_name: "archive" }, tables: ["agno_eval_runs"] },
        ],
      },
    });
    expect(body.agents).toEqual([
      { id: "a", name: "A", db_id: "main", model: { id: "gpt-4.1-mini", provider: "openai" } },
      { id: "b", db_id: "main", model: { id: "gpt-4.1-mini", provider: "openai" } },
      { id: "c", description: "Claude", db_id: "main", model: { id: "claude-sonnet-4-5", provider: "anthropic" } },
    ]);
    const info = await fetch("/info");
    expect(info.body).toMatchObject({ os_id: "sdk-os", name: "SDK OS", agent_count: 3, auth_mode: "none" });
  });

  it("GET /config with no database and no agents: no os_database, empty lists, every block still there", async () => {
    const { body } = await sdkOs([], { mode: "none" }, { dbs: [] })("/config");
    expect(body).toEqual({
      os_id: "sdk-os",
      name: "SDK OS",
      available_models: [],
      databases: [],
      session: { dbs: [] },
      metrics: { dbs: [] },
      memory: { dbs: [] },
      learning: { dbs: [] },
      knowledge: { dbs: [], knowledge_instances: [] },
      evals: { dbs: [] },
      traces: { dbs: [] },
      agents: [],
      teams: [],
      workflows: [],
      interfaces: [],
    });
  });

  it("GET /config refuses a caller without credentials (401) or without config:read (403) in agno's error body", async () => {
    const anonymous = await conformingCall("/config", {}, {}, {});
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({
      detail: expect.any(String),
      error_id: "unauthorized",
      error_type: "unauthorized",
    });
    const jwt = await isolatedJwt("meta-config");
    const forbidden = await conformingCall("/config", {}, jwt.env, await jwt.bearer("ann", ["sessions:read"]));
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toMatchObject({ error_id: "forbidden", error_type: "forbidden" });
    expect((await conformingCall("/config", {}, jwt.env, await jwt.bearer("ann", ["config:read"]))).status).toBe(200);
  });

  it("GET /openapi.json and GET /docs answer the document and its page", async () => {
    const doc = await conformingCall("/openapi.json");
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe("3.1.0");
    // The document names agno's models for the meta routes, and its error body for every refusal.
    const schemaOf = (path: string, status: string) =>
      doc.body.paths[path].get.responses[status].content["application/json"].schema.$ref;
    expect(schemaOf("/config", "200")).toBe("#/components/schemas/ConfigResponse");
    expect(schemaOf("/info", "200")).toBe("#/components/schemas/InfoResponse");
    expect(schemaOf("/health", "200")).toBe("#/components/schemas/HealthResponse");
    expect(schemaOf("/config", "401")).toBe("#/components/schemas/ErrorResponse");
    expect(doc.body.components.schemas.ConfigResponse["x-agno"]).toBe("libs/agno/agno/os/schema.py:ConfigResponse");
    const page = await conformingCall("/docs");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
    expect(page.text).toContain("/config");
  });

  it("every error is agno's body: detail, with error_id and error_type together (a 422 and an unknown route too)", async () => {
    const invalid = await conformingCall("/sessions?limit=many");
    expect(invalid.status).toBe(422);
    expect(invalid.body).toEqual({
      detail: expect.stringContaining("limit"),
      error_id: "validation_error",
      error_type: "validation_error",
    });
    // An unknown route is declared by no route, so it is parsed with the error schema here.
    const res = await send("/no/such/route");
    expect(res.status).toBe(404);
    const body = agnoErrorSchema.parse(await res.json());
    expect(body).toEqual({ detail: expect.any(String), error_id: "not_found", error_type: "not_found" });
  });
}
