import type { Agent } from "../../agent/agent.js";
import { componentOrigin } from "../component-origin.js";
import type { Team } from "../../team/team.js";
import type { Workflow } from "../../workflow/workflow.js";
import type { Db } from "../../db/port.js";
import { DEFAULT_TABLE_NAMES, type TableNames } from "../../db/postgres/names.js";
import type { OSInterface } from "../../interfaces/os-interface.js";
import type { Knowledge } from "../../knowledge/knowledge.js";
import { knowledgeConfigOf } from "../knowledge-bases.js";
import { DatabaseUnavailableError } from "../../errors.js";
import type { AuthConfig } from "../auth/middleware.js";
import { defineRoute, handle, routeApp } from "../route.js";
import { agnoDatetimeOf } from "../wire/agno-object.js";
import { configResponseSchema, type ConfigResponse } from "../wire/config.js";
import { healthResponseSchema } from "../wire/health.js";
import { infoResponseSchema } from "../wire/info.js";
import { homeResponseSchema } from "../wire/meta.js";
import { memoryTableOf } from "./memories.js";
import { evalTableOf } from "./evals.js";
import type { ComponentRegistry } from "../../components/component-registry.js";
import { hasScope, principalOf } from "../auth/scopes.js";
import { storedAgentsFor, storedCompositesFor } from "../stored-agents.js";

export interface OSIdentity {
  id: string;
  name: string;
  description?: string;
  /** this AgentOS's version (agno's `os_version`) */
  version: string;
  /** the agno release whose API this AgentOS answers (agno's `agno_version`) */
  agnoVersion: string;
}

const json = <S>(schema: S, description: string) => ({ description, content: { "application/json": { schema } } });

const home = defineRoute({
  method: "get",
  path: "/",
  tags: ["Meta"],
  summary: "The OS's name and where its health, info and docs routes are",
  scope: null,
  responses: { 200: json(homeResponseSchema, "Landing") },
});
const health = defineRoute({
  method: "get",
  path: "/health",
  tags: ["Meta"],
  summary: "Liveness, and whether each database answers",
  scope: null,
  responses: { 200: json(healthResponseSchema, "Always 200 while the service runs") },
});
const info = defineRoute({
  method: "get",
  path: "/info",
  tags: ["Meta"],
  summary: "Who this AgentOS is, what it serves and how to authenticate (no credentials needed)",
  scope: null,
  responses: { 200: json(infoResponseSchema, "Identity, versions, counts and auth mode") },
});
const config = defineRoute({
  method: "get",
  path: "/config",
  tags: ["Meta"],
  summary: "Agents, teams, workflows, interfaces, databases and available models",
  scope: { resource: "config", action: "read" },
  responses: { 200: json(configResponseSchema, "The OS's configuration") },
});

/** What the meta routes describe: the served components and how requests authenticate. */
export interface Served {
  agents: Agent[];
  teams?: Team[];
  workflows?: Workflow[];
  /** the knowledge bases `/knowledge` serves (`/config`'s `knowledge` block lists them) */
  knowledge?: readonly Knowledge[];
  /** the interfaces mounted (`/config`'s `interfaces`) */
  interfaces?: readonly Pick<OSInterface, "type" | "version" | "prefix">[];
  auth: AuthConfig;
  /** `/mcp` is served (`/info`'s `mcp`) */
  mcp?: boolean;
  /** what stored components build with: `/config` lists the published stored agents and teams too */
  registry?: ComponentRegistry;
}

/** `/`, `/health`, `/info` (no auth: nothing secret) and `/config` (auth). */
export function metaRoutes(os: OSIdentity, startedAtMs: number, served: Served) {
  const app = routeApp();
  handle(app, home, (c) => c.json({ name: os.name, health: "/health", info: "/info", docs: "/docs" }));
  const probe = databaseProbe();
  const instantiatedAt = agnoDatetimeOf(startedAtMs);
  // agno's answer ({status, instantiated_at}, always 200: the service is up) plus `databases`, which
  // agno does not report: a database that does not answer makes the status "degraded".
  handle(app, health, async (c) => {
    if (c.env.misconfigured)
      return c.json({
        status: "misconfigured",
        detail: c.env.misconfigured,
        instantiated_at: instantiatedAt,
        databases: [],
      });
    const databases = await Promise.all(c.env.dbs.map(async (db) => ({ id: db.id, status: await probe(db) })));
    return c.json({
      status: databases.every((d) => d.status === "ok") ? "ok" : "degraded",
      instantiated_at: instantiatedAt,
      databases,
    });
  });
  const authMode = authModeOf(served.auth);
  handle(app, info, (c) =>
    c.json({
      os_id: os.id,
      name: os.name,
      os_version: os.version,
      agno_version: os.agnoVersion,
      agent_count: served.agents.length,
      team_count: served.teams?.length ?? 0,
      workflow_count: served.workflows?.length ?? 0,
      mcp: { enabled: served.mcp === true, path: served.mcp ? "/mcp" : null, oauth: null },
      auth_mode: authMode,
    }),
  );
  // The code-defined components, then the published stored agents, teams and workflows the caller
  // may see (as `/agents`, `/teams` and `/workflows` list them; a draft is its editor's to run by
  // version, not listed).
  handle(app, config, async (c) => {
    const registry = served.registry;
    if (!registry) return c.json(configOf(os, served, c.env.dbs));
    const principal = principalOf(c);
    const [agents, teams, workflows] = await Promise.all([
      storedAgentsFor(c, registry),
      storedCompositesFor(c, registry, "team"),
      storedCompositesFor(c, registry, "workflow"),
    ]);
    return c.json(
      configOf(
        os,
        {
          ...served,
          agents: [...served.agents, ...agents.filter((a) => hasScope(principal, "agents", "read", a.id))],
          teams: [...(served.teams ?? []), ...teams.filter((t) => hasScope(principal, "teams", "read", t.id))],
          workflows: [
            ...(served.workflows ?? []),
            ...workflows.filter((w) => hasScope(principal, "workflows", "read", w.id)),
          ],
        },
        c.env.dbs,
      ),
    );
  });
  return app;
}

/**
 * agno's `auth_mode`: what a client must send. A deployment that is closed (no credentials set,
 * or wrong settings) accepts nothing until it is fixed; agno's three values cannot say that, and
 * "none" would tell clients to send nothing, so it reports the bearer key its refusal asks for.
 */
function authModeOf(auth: AuthConfig): "none" | "security_key" | "jwt" {
  return auth.mode === "none" || auth.mode === "jwt" ? auth.mode : "security_key";
}

/** The table a database keeps one kind of row in: its own name when it has one (Postgres), else agno's. */
const tableOf =
  (kind: keyof TableNames) =>
  (db: Db): string =>
    (db as Partial<{ names: TableNames }>).names?.[kind] ?? DEFAULT_TABLE_NAMES[kind];

/**
 * `/config` as agno fills it: the models are the distinct (id, provider) pairs of the agents'
 * and team leaders' models; agents are bound to the request's first database, which also holds the OS's own data
 * (schedules, jobs), so it is `os_database` and each agent's `db_id`. Sessions live in every
 * database, and so do memories (each database's with its memories table) and learnings (each
 * database's learnings table); knowledge lists the databases its bases store contents in and the
 * bases; evals and metrics list every database with its eval or metrics table; traces name the
 * OS's own database only (no tables), where the tracer writes and the trace routes read.
 */
function configOf(os: OSIdentity, served: Served, dbs: Db[]): ConfigResponse {
  const { agents, teams = [], workflows = [] } = served;
  const dbIds = [...new Set(dbs.map((db) => db.id))];
  const defaultDb = dbs[0]?.id;
  const models = new Map<string, { id: string; provider: string }>();
  for (const served of [...agents, ...teams]) {
    const { id, provider } = served.model;
    if (id && provider && !models.has(`${provider}\n${id}`)) models.set(`${provider}\n${id}`, { id, provider });
  }
  return {
    os_id: os.id,
    name: os.name,
    ...(os.description !== undefined && { description: os.description }),
    available_models: [...models.values()],
    ...(defaultDb !== undefined && { os_database: defaultDb }),
    databases: dbIds,
    session: { dbs: dbIds.map((id) => ({ db_id: id, domain_config: { display_name: id } })) },
    // As agno's _get_metrics_config: every database, with the metrics tables it names.
    metrics: {
      dbs: dbIds.map((id) => ({
        db_id: id,
        domain_config: { display_name: id },
        tables: [...new Set(dbs.filter((db) => db.id === id).map(tableOf("metrics")))],
      })),
    },
    // As agno's _get_memory_config: each database, with the memories tables of its instances.
    memory: {
      dbs: dbIds.map((id) => ({
        db_id: id,
        domain_config: { display_name: id },
        tables: [...new Set(dbs.filter((db) => db.id === id).map(memoryTableOf))],
      })),
    },
    // As agno's _get_learning_config: every database, with the learnings tables it names.
    learning: {
      dbs: dbIds.map((id) => ({
        db_id: id,
        domain_config: { display_name: id },
        tables: [...new Set(dbs.filter((db) => db.id === id).map(tableOf("learnings")))],
      })),
    },
    knowledge: knowledgeConfigOf(served.knowledge ?? [], dbIds),
    // As agno's _get_evals_config: every database, with the eval tables it names.
    evals: {
      dbs: dbIds.map((id) => ({
        db_id: id,
        domain_config: { display_name: id },
        tables: [...new Set(dbs.filter((db) => db.id === id).map(evalTableOf))],
      })),
    },
    // As agno's _get_traces_config with its OS database set: that database alone, without tables.
    traces: { dbs: defaultDb === undefined ? [] : [{ db_id: defaultDb, domain_config: { display_name: defaultDb } }] },
    agents: agents.map((agent) => ({
      id: agent.id,
      ...(agent.name !== undefined && { name: agent.name }),
      ...(agent.description !== undefined && { description: agent.description }),
      ...(defaultDb !== undefined && { db_id: defaultDb }),
      ...modelOf(agent.model),
    })),
    teams: teams.map((team) => ({
      id: team.id,
      ...(team.name !== undefined && { name: team.name }),
      ...(team.description !== undefined && { description: team.description }),
      ...(defaultDb !== undefined && { db_id: defaultDb }),
      mode: team.mode,
      ...modelOf(team.model),
    })),
    workflows: workflows.map((workflow) => ({
      id: workflow.id,
      name: workflow.name,
      ...(workflow.description !== undefined && { description: workflow.description }),
      ...(defaultDb !== undefined && { db_id: defaultDb }),
      is_factory: false,
      ...componentOrigin(workflow.stored),
    })),
    // As agno's InterfaceResponse: the route is the interface's prefix.
    interfaces: (served.interfaces ?? []).map((i) => ({ type: i.type, version: i.version, route: i.prefix })),
  };
}

/** agno's `Model` block of a summary: the id and provider it knows, absent when it knows neither. */
function modelOf(model: { id?: string; provider?: string }) {
  return model.id || model.provider
    ? { model: { ...(model.id && { id: model.id }), ...(model.provider && { provider: model.provider }) } }
    : {};
}

/** How long a database's state is taken as known: /health needs no credentials, so callers must not be able to make it open a connection per request. */
const PROBE_TTL_MS = 5_000;

/** Each database's state ("ok", "unavailable" or "error"), asked with one round trip at most every PROBE_TTL_MS per isolate; concurrent asks share it. */
function databaseProbe() {
  const known = new Map<string, { at: number; state: Promise<string> }>();
  return (db: Db): Promise<string> => {
    const hit = known.get(db.id);
    if (hit && Date.now() - hit.at < PROBE_TTL_MS) return hit.state;
    const state = (db.ping ? db.ping() : db.schemaVersion()).then(
      () => "ok",
      (error: unknown) => (error instanceof DatabaseUnavailableError ? "unavailable" : "error"),
    );
    known.set(db.id, { at: Date.now(), state });
    return state;
  };
}
