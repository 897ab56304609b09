import { Hono } from "hono";
import type { Agent } from "../../agent/agent.js";
import { requireScope } from "../auth/scopes.js";
import type { OSEnv } from "../context.js";

export interface OSIdentity {
  id: string;
  name: string;
  description?: string;
  version: string;
}

/** `/`, `/health`, `/info` (no auth: nothing secret) and `/config` (auth). */
export function metaRoutes(os: OSIdentity, startedAt: number, served: { agents: Agent[]; availableModels: string[] }) {
  const app = new Hono<OSEnv>();
  app.get("/", (c) => c.json({ name: os.name, id: os.id, version: os.version, info: "/info" }));
  app.get("/health", (c) => c.json({ status: "ok", instantiated_at: startedAt }));
  app.get("/info", (c) => c.json({ os_id: os.id, name: os.name, description: os.description ?? null, version: os.version }));
  app.get("/config", requireScope("config", "read"), (c) =>
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
