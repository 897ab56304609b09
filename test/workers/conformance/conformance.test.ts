import { describe, expect, it } from "vitest";
import { agnoSourceOf } from "../../../src/os/wire/agno-object.js";
import { BEYOND_AGNO } from "../../../src/os/wire/beyond-agno.js";
import { send } from "../worker-client.js";
import { answered, checkAnswer, ConformanceError, NOT_AGNO_MODELS } from "./check.js";
import { CONTRACTS, routeKey } from "./contracts.js";
import { agentsScenarios } from "./scenarios/agents.js";
import { memoriesScenarios } from "./scenarios/memories.js";
import { learningsScenarios } from "./scenarios/learnings.js";
import { knowledgeScenarios } from "./scenarios/knowledge.js";
import { metaScenarios } from "./scenarios/meta.js";
import { routersScenarios } from "./scenarios/routers.js";
import { sessionsScenarios } from "./scenarios/sessions.js";
import { teamsWorkflowsScenarios } from "./scenarios/teams-workflows.js";
import { interfacesScenarios } from "./scenarios/interfaces.js";
import { mcpScenarios } from "./scenarios/mcp.js";
import { a2aScenarios } from "./scenarios/a2a.js";
import { modelsScenarios } from "./scenarios/models.js";
import { approvalsScenarios } from "./scenarios/approvals.js";
import { serviceAccountsScenarios } from "./scenarios/service-accounts.js";
import { componentsScenarios } from "./scenarios/components.js";
import { tracesScenarios } from "./scenarios/traces.js";
import { metricsScenarios } from "./scenarios/metrics.js";
import { evalsScenarios } from "./scenarios/evals.js";

/** Routes that cannot succeed in this deployment, each with why (their refusals are still checked). */
const NO_SUCCESS_HERE: Record<string, string> = {
  "POST /knowledge/remote-content":
    "the deployment offers no remote content source (S3, GCS, SharePoint, GitHub): every config_id is unknown",
  "GET /knowledge/{knowledge_id}/sources/{source_id}/files":
    "the deployment offers no remote content source: every source_id is unknown (404)",
  "GET /mcp": "a stateless MCP server offers no standalone SSE stream: always 405, as MCP's transport says",
  "DELETE /mcp": "a stateless MCP server holds no session to end: always 405",
};

/**
 * agno's wire contract, route by route: every answer below goes through `conformingCall`, which
 * parses it strictly with the schema the route declares (agno's response model, transcribed in
 * src/os/wire). The scenario modules drive the routes with realistic data; the last tests check
 * that every served route was answered and that the check itself can fail.
 */
describe("agno conformance", () => {
  describe("meta", metaScenarios);
  describe("routers", routersScenarios);
  describe("sessions", sessionsScenarios);
  describe("learnings", learningsScenarios);
  describe("agents", agentsScenarios);
  describe("teams and workflows", teamsWorkflowsScenarios);
  describe("memories", memoriesScenarios);
  describe("knowledge", knowledgeScenarios);
  describe("chat interfaces", interfacesScenarios);
  describe("mcp", mcpScenarios);
  describe("A2A", a2aScenarios);
  describe("models", modelsScenarios);
  describe("approvals", approvalsScenarios);
  describe("service accounts and audit", serviceAccountsScenarios);
  describe("components", componentsScenarios);
  describe("traces", tracesScenarios);
  describe("metrics", metricsScenarios);
  describe("evals", evalsScenarios);

  it("every served route was answered with a success that conformed", () => {
    const unanswered = CONTRACTS.map(routeKey).filter(
      (key) => !NO_SUCCESS_HERE[key] && ![...(answered.get(key) ?? [])].some((status) => status < 400),
    );
    expect(unanswered).toEqual([]);
  });

  it("every protected route's refusal without credentials is agno's error body", async () => {
    for (const contract of CONTRACTS) {
      // A public route that may answer 401 (agno's workflow socket, refusing a bad bearer at the upgrade) is not refused without one.
      if (!contract.responses.has(401) || contract.isPublic) continue;
      const concrete = contract.path.replace(/\{[a-z_:]+\}/g, "conformance-probe");
      const res = await send(concrete, { method: contract.method }, {}, {});
      expect(res.status, routeKey(contract)).toBe(401);
      checkAnswer(contract.method, concrete, res.status, res.headers.get("content-type") ?? "", await res.text());
    }
  });

  it("every 2xx JSON answer is declared with one of agno's models, or listed with a reason", () => {
    for (const contract of CONTRACTS) {
      const key = routeKey(contract);
      if (NOT_AGNO_MODELS[key]) continue;
      for (const [status, { schema }] of contract.responses) {
        if (status >= 300) continue;
        if (status === 204) continue;
        expect(schema && agnoSourceOf(schema), `${key} ${status}`).toBeTruthy();
      }
    }
  });

  it("every field listed beyond agno is declared by some response", async () => {
    const doc = JSON.stringify((await (await send("/openapi.json")).json()) as unknown);
    for (const b of BEYOND_AGNO) expect(doc, `${b.model}.${b.field}`).toContain(`Beyond agno: ${b.reason}`);
  });

  it("a wrong field fails the check: a mutated answer does not conform", async () => {
    const res = await send("/health");
    const body = (await res.json()) as Record<string, unknown>;
    const check = (b: unknown) => () => checkAnswer("GET", "/health", 200, "application/json", JSON.stringify(b));
    expect(check(body)).not.toThrow();
    expect(check({ ...body, status: 1 })).toThrow(ConformanceError);
    expect(check({ ...body, not_in_agno: true })).toThrow(ConformanceError);
    const { status: _dropped, ...missing } = body;
    expect(check(missing)).toThrow(ConformanceError);
  });
});
