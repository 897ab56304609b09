import { z } from "zod";
import type { Agent } from "../../agent/agent.js";
import { defineRoute, handle, routeApp } from "../route.js";

export interface OSIdentity {
  id: string;
  name: string;
  description?: string;
  version: string;
}

const infoSchema = z.object({ os_id: z.string(), name: z.string(), description: z.string().nullable(), version: z.string() }).meta({ id: "OSInfo" });

const landing = defineRoute({ method: "get", path: "/", tags: ["Meta"], summary: "Minimal landing body", scope: null });
const health = defineRoute({ method: "get", path: "/health", tags: ["Meta"], summary: "Liveness", scope: null });
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
export function metaRoutes(os: OSIdentity, startedAt: number, served: { agents: Agent[]; availableModels: string[] }) {
  const app = routeApp();
  handle(app, landing, (c) => c.json({ name: os.name, id: os.id, version: os.version, info: "/info" }));
  handle(app, health, (c) => c.json({ status: "ok", instantiated_at: startedAt }));
  handle(app, info, (c) => c.json({ os_id: os.id, name: os.name, description: os.description ?? null, version: os.version }));
  handle(app, config, (c) =>
    c.json({
      os_id: os.id,
      name: os.name,
      description: os.description ?? null,
      version: os.version,
      databases: c.env.dbs.map((db) => db.id),
      agents: served.agents.map((a) => ({ id: a.id, name: a.name ?? a.id, description: a.description ?? null, model: { id: a.model.id, provider: a.model.provider } })),
      teams: [],
      workflows: [],
      interfaces: [],
      available_models: served.availableModels,
    }),
  );
  return app;
}

