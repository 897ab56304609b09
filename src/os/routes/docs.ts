import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import type { OSEnv } from "../context.js";
import { defineRoute, handle, routeApp } from "../route.js";
import { docsPage } from "../docs-page.js";

export interface DocsInfo {
  title: string;
  version: string;
  description?: string;
}

const openapi = defineRoute({
  method: "get",
  path: "/openapi.json",
  tags: ["Meta"],
  summary: "This API as an OpenAPI 3.1 document",
  scope: { resource: "config", action: "read" },
  responses: {
    200: {
      description: "The document",
      content: {
        "application/json": {
          schema: z.looseObject({
            openapi: z.string(),
            info: z.looseObject({}),
            paths: z.record(z.string(), z.unknown()),
          }),
        },
      },
    },
  },
});
const docs = defineRoute({
  method: "get",
  path: "/docs",
  tags: ["Meta"],
  summary: "This API as a readable page",
  scope: { resource: "config", action: "read" },
  responses: { 200: { description: "The page", content: { "text/html": { schema: z.string() } } } },
});

/**
 * `/openapi.json` and `/docs`, both generated from the route definitions of `app`, so they list
 * exactly what the runtime serves and checks. Built once, on first request, after every module
 * has registered its routes.
 */
export function docsRoutes(app: OpenAPIHono<OSEnv>, info: DocsInfo) {
  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
    description: "OS_SECURITY_KEY, or a JWT verified against JWT_VERIFICATION_KEYS",
  });
  let document: Record<string, unknown> | undefined;
  const build = () =>
    (document ??= app.getOpenAPI31Document({
      openapi: "3.1.0",
      info: { title: info.title, version: info.version, description: info.description },
    }) as unknown as Record<string, unknown>);
  const routes = routeApp();
  handle(routes, openapi, (c) => c.json(build()));
  handle(routes, docs, (c) => {
    // No scripts, no framing (clickjacking), no content sniffing: the page is static HTML and styles.
    c.header(
      "content-security-policy",
      "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    );
    c.header("x-content-type-options", "nosniff");
    return c.html(docsPage(build()));
  });
  return routes;
}
