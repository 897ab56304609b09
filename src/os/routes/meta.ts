import { z } from "zod";
import type { Agent } from "../../agent/agent.js";
import type { Db } from "../../db/port.js";
import { DatabaseUnavailableError } from "../../errors.js";
import { defineRoute, handle, routeApp } from "../route.js";
import { healthResponseSchema } from "../wire/health.js";

export interface OSIdentity {
  id: string;
  name: string;
  description?: string;
  version: string;
}

const infoSchema = z
  .object({ os_id: z.string(), name: z.string(), description: z.string().nullable(), version: z.string() })
  .meta({ id: "OSInfo" });

const landing = defineRoute({ method: "get", path: "/", tags: ["Meta"], summary: "Minimal landing body", scope: null });

const health = defineRoute({
  method: "get",
  path: "/health",
  tags: ["Meta"],
  summary: "Liveness, and whether each database answers",
  scope: null,
  responses: {
    200: {
      description: "Always 200 while the service runs",
      content: { "application/json": { schema: healthResponseSchema } },
    },
  },
});
const info = defineRoute({
  method: "get",
  path: "/info",
  tags: ["Meta"],
  summary: "Who this AgentOS is (the only metadata route without credentials)",
  scope: null,
  responses: { 200: { description: "Identity", content: { "application/json": { schema: infoSchema } } } },
});
const config = defineRoute({
  method: "get",
  path: "/config",
  tags: ["Meta"],
  summary: "Agents, teams, workflows, interfaces, databases and available models",
  scope: { resource: "config", action: "read" },
});

/** `/`, `/health`, `/info` (no auth: nothing secret) and `/config` (auth). */
export function metaRoutes(
  os: OSIdentity,
  startedAtSeconds: number,
  served: { agents: Agent[]; availableModels: string[] },
) {
  const app = routeApp();
  handle(app, landing, (c) => c.json({ name: os.name, id: os.id, version: os.version, info: "/info" }));
  const probe = databaseProbe();
  const startedAt = new Date(startedAtSeconds * 1000).toISOString();
  // agno's answer ({status, instantiated_at}, always 200: the service is up) plus `databases`, which
  // agno does not report: a database that does not answer makes the status "degraded".
  handle(app, health, async (c) => {
    if (c.env.misconfigured)
      return c.json({
        status: "misconfigured",
        detail: c.env.misconfigured,
        instantiated_at: startedAt,
        databases: [],
      });
    const databases = await Promise.all(c.env.dbs.map(async (db) => ({ id: db.id, status: await probe(db) })));
    return c.json({
      status: databases.every((d) => d.status === "ok") ? "ok" : "degraded",
      instantiated_at: startedAt,
      databases,
    });
  });
  handle(app, info, (c) =>
    c.json({ os_id: os.id, name: os.name, description: os.description ?? null, version: os.version }),
  );
  handle(app, config, (c) =>
    c.json({
      os_id: os.id,
      name: os.name,
      description: os.description ?? null,
      version: os.version,
      databases: c.env.dbs.map((db) => db.id),
      agents: served.agents.map((a) => ({
        id: a.id,
        name: a.name ?? a.id,
        description: a.description ?? null,
        model: { id: a.model.id, provider: a.model.provider },
      })),
      teams: [],
      workflows: [],
      interfaces: [],
      available_models: served.availableModels,
    }),
  );
  return app;
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
