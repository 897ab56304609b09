import type { Context, MiddlewareHandler } from "hono";
import { ForbiddenError } from "../../errors.js";
import type { OSEnv } from "../context.js";
import type { Principal } from "./jwt.js";

/** agno's aliases: `system:*` scopes grant the same as `config:*`. */
const ALIASES: Record<string, string> = { "system:read": "config:read", "system:write": "config:write" };

/**
 * agno's scope grammar: `resource:action`, `resource:<id>:action`, `resource:*:action`, and
 * `agent_os:admin` for everything. `id` is the resource instance a route touches, when it has one.
 */
export function hasScope(principal: Principal, resource: string, action: string, id?: string): boolean {
  if (principal.admin) return true;
  const granted = new Set(principal.scopes.map((s) => ALIASES[s] ?? s));
  if (granted.has(`${resource}:${action}`) || granted.has(`${resource}:*:${action}`)) return true;
  return id !== undefined && granted.has(`${resource}:${id}:${action}`);
}

export function principalOf(c: Context<OSEnv>): Principal {
  return c.get("principal");
}

/** Route guard: 403 unless the caller holds the scope (for `idParam`'s instance, when given). */
export function requireScope(resource: string, action: string, idParam?: string): MiddlewareHandler<OSEnv> {
  return async (c, next) => {
    const id = idParam ? c.req.param(idParam) : undefined;
    if (!hasScope(principalOf(c), resource, action, id)) {
      throw new ForbiddenError(`this needs the scope ${resource}${id ? `:${id}` : ""}:${action}`);
    }
    await next();
  };
}

/**
 * The user a data call is scoped to. With isolation on, a non-admin is always scoped to
 * themselves, whatever `user_id` the request names; otherwise the request's `user_id` filters.
 */
export function effectiveUserId(c: Context<OSEnv>, requested: string | undefined): string | undefined {
  const principal = principalOf(c);
  if (c.get("userIsolation") && !principal.admin) return principal.userId ?? undefined;
  return requested;
}

/**
 * The user filter of a read. With isolation a non-admin reads their own rows and the shared ones
 * (rows that belong to no user, SPEC U2); writes use `effectiveUserId`, so only admins edit those.
 */
export function readScope(c: Context<OSEnv>, requested: string | undefined): { userId?: string; includeShared?: boolean } {
  const principal = principalOf(c);
  if (c.get("userIsolation") && !principal.admin) return { userId: principal.userId ?? undefined, includeShared: true };
  return requested === undefined ? {} : { userId: requested };
}
