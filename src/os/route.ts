import { createRoute, OpenAPIHono, type RouteConfig, type RouteHandler } from "@hono/zod-openapi";
import { z } from "zod";
import { ValidationError } from "../errors.js";
import { JSON_LIMITS, jsonProblem } from "../json-limits.js";
import type { OSEnv } from "./context.js";
import { requireScope, scopeText } from "./auth/scopes.js";
import { publicRoute } from "./auth/middleware.js";
import { agnoErrorSchema } from "./wire/errors.js";

/** The scope a route needs: `resource:action`, checked for the path's `idParam` instance when set. */
export interface ScopeNeed {
  resource: string;
  action: string;
  idParam?: string;
  /** the one instance the route acts on when its path names none (an interface in front of one agent) */
  instance?: string;
  /**
   * Checked per item instead of at the route: a list that per-instance scopes filter (any
   * authenticated caller gets it, minus what they may not see), a socket whose messages each
   * name their agent, or the MCP server, whose tools each go through a route with its own scope.
   * Says how, in the documentation.
   */
  perItem?: "filters the list" | "checked per message" | "checked per tool call";
}

/**
 * One route as data: method, path (OpenAPI style, `{id}`), zod schemas for what it accepts, the
 * scope it needs and a summary. Validation, the scope guard, `/openapi.json` and `/docs` all come
 * from this one definition, so the documentation cannot drift from what the code enforces.
 */
export type OSRoute = Omit<RouteConfig, "responses" | "middleware"> & {
  summary: string;
  tags: [string];
  /** `null`: needs no credentials; the one place a route is made public (the auth middleware reads it from here) */
  scope: ScopeNeed | null;
  /**
   * On a public route that checks its caller itself (a chat platform's webhook): what proves the
   * request, documented as `x-authenticated-by`; without that proof it answers 401 (or 403)
   */
  authenticatedBy?: string;
  responses?: RouteConfig["responses"];
};

/** Every error answer: agno's error body (src/os/wire/errors.ts). */
export const errorSchema = agnoErrorSchema;

/** A route's JSON answer of `schema`, for `responses` (so `/openapi.json` and the conformance suite see the schema). */
export const jsonAnswer = (schema: z.ZodType, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

/** The answers every protected route may give besides its own. */
const commonErrors = {
  401: jsonAnswer(errorSchema, "Missing or invalid credentials"),
  403: jsonAnswer(errorSchema, "The credentials lack the route's scope"),
  413: jsonAnswer(errorSchema, "Body larger than the configured limit"),
  422: jsonAnswer(errorSchema, "Input failed validation; `detail` names the field"),
};

/** What `defineRoute` gives: the route with its guard attached (input types kept exact). */
export type DefinedRoute<R extends OSRoute> = Omit<R, "scope" | "responses"> & {
  responses: RouteConfig["responses"];
  middleware?: RouteConfig["middleware"];
};

export function defineRoute<R extends OSRoute>(def: R): DefinedRoute<R> {
  const { scope, responses, authenticatedBy, ...rest } = def;
  const route = {
    ...rest,
    ...(authenticatedBy ? { "x-authenticated-by": authenticatedBy } : {}),
    ...(scope
      ? {
          ...(scope.perItem
            ? {}
            : { middleware: requireScope(scope.resource, scope.action, scope.idParam, scope.instance) }),
          security: [{ bearer: [] }],
          "x-required-scope": scope.perItem
            ? `${scope.resource}:{id}:${scope.action} (${scope.perItem})`
            : scopeText(scope.resource, scope.action, scope.idParam ? `{${scope.idParam}}` : scope.instance),
        }
      : { middleware: publicRoute, security: [] }),
    responses: { ...(scope ? commonErrors : {}), ...(responses ?? { 200: { description: "OK" } }) },
  };
  return createRoute(route as RouteConfig) as unknown as DefinedRoute<R>;
}

/** The context a route's handler receives: validated input typed from the route's schemas. */
export type RouteContext<R extends RouteConfig> = Parameters<RouteHandler<R, OSEnv>>[0];

/** The first problem zod found, as a 422 naming where (`body`, `query`, …) and the field. */
export function validationError(error: z.ZodError, where: string): ValidationError {
  const issue = error.issues[0]!;
  const field = issue.path.join(".");
  return new ValidationError(
    field ? `${where} ${field}: ${issue.message}` : `${where}: ${issue.message}`,
    field || where,
  );
}

/**
 * The first field of validated input (a body, a query, the path) that is too deep, too large, or
 * holds text Postgres cannot store (NUL, a lone surrogate), checked field by field: every
 * free-form object of every route is bounded here, before its handler stores it or sends it to
 * a model, and a route added later inherits the check.
 */
export function inputProblem(data: unknown, where: string): ValidationError | null {
  const fields: Array<[string, unknown]> =
    data !== null && typeof data === "object" && !Array.isArray(data) ? Object.entries(data) : [["", data]];
  for (const [name, value] of fields) {
    const problem = jsonProblem(value, { maxDepth: JSON_LIMITS.maxDepth, text: true });
    if (!problem) continue;
    const field = [name, problem.path].filter((p) => p !== "").join(".");
    return new ValidationError(
      field ? `${where} ${field}: ${problem.message}` : `${where}: ${problem.message}`,
      field || where,
    );
  }
  return null;
}

/** A sub-app whose validation failures answer 422 naming the field. */
export function routeApp(): OpenAPIHono<OSEnv> {
  return new OpenAPIHono<OSEnv>({
    defaultHook: (result) => {
      const where =
        result.target === "param"
          ? "path"
          : result.target === "json" || result.target === "form"
            ? "body"
            : result.target;
      if (!result.success) throw validationError(result.error, where);
      const problem = inputProblem(result.data, where);
      if (problem) throw problem;
    },
  });
}

/** Registers a route; the handler answers a plain Response (views shape the JSON). */
export function handle<R extends RouteConfig>(
  app: OpenAPIHono<OSEnv>,
  route: R,
  handler: (c: RouteContext<R>) => Response | Promise<Response>,
): void {
  app.openapi(route, handler as never);
}

/**
 * Common parameter schemas, named once so the OpenAPI document reuses them. Ids are printable: a
 * control character (NUL, `%00` in a path) is a 422 here, never sent to the database.
 */
export const idSchema = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[^\u0000-\u001f\u007f]*$/, "must not contain control characters");
export const jsonObject = z.record(z.string(), z.unknown());
/** A route's required JSON request body, validated against `schema`. */
export const jsonBody = <T extends z.ZodType>(schema: T) => ({
  required: true,
  content: { "application/json": { schema } },
});
