import { z } from "zod";
import type { ComponentRegistry } from "../../components/component-registry.js";
import { defineRoute, handle, jsonAnswer, routeApp } from "../route.js";
import { paginationInfo } from "../wire/paginated.js";
import { paginatedRegistrySchema, registryView } from "../wire/components.js";

const listRegistry = defineRoute({
  method: "get",
  path: "/registry",
  tags: ["Registry"],
  summary: "List Registry",
  description:
    "What a stored component's config may use: models (by provider string), tools with their argument schemas, knowledge bases, and the code-defined agents, teams and workflows.",
  scope: { resource: "registry", action: "read" },
  request: {
    query: z.object({
      resource_type: z.enum(["tool", "model", "knowledge", "agent", "team", "workflow"]).optional(),
      name: z.string().max(255).optional().describe("Filter by name (partial match)"),
      page: z.coerce.number().int().min(1).default(1),
      limit: z.coerce.number().int().min(1).max(100).default(20),
    }),
  },
  responses: { 200: jsonAnswer(paginatedRegistrySchema, "A page of registry resources") },
});

/** agno's `GET /registry`, from the deployment's ComponentRegistry. */
export function registryRoutes(registry: ComponentRegistry) {
  const app = routeApp();
  handle(app, listRegistry, (c) => {
    const q = c.req.valid("query");
    const started = Date.now();
    const needle = q.name?.trim().toLowerCase();
    const all = registry
      .resources()
      .filter(
        (r) =>
          (q.resource_type === undefined || r.type === q.resource_type) &&
          (!needle || r.name.toLowerCase().includes(needle)),
      );
    const start = (q.page - 1) * q.limit;
    return c.json({
      data: all.slice(start, start + q.limit).map(registryView),
      meta: {
        ...paginationInfo({ page: q.page, limit: q.limit, total_count: all.length }),
        search_time_ms: Date.now() - started,
      },
    });
  });
  return app;
}
