import type { Context, MiddlewareHandler } from "hono";
import { ForbiddenError } from "../../errors.js";
import type { OSEnv } from "../context.js";
import type { Principal } from "./jwt.js";

/** agno's principal namespace for service accounts (`sa:<name>`), which only a key can speak for. */
const SERVICE_ACCOUNT_PRINCIPAL = "sa:";
/** The one scope that grants everything (agno's default `admin_scope`); nothing else is admin, `agent_os:*:admin` included. */
export const ADMIN_SCOPE = "agent_os:admin";
/** agno's legacy resource names: `system:*` scopes grant the same as `config:*`. */
const LEGACY_RESOURCES: Record<string, string> = { system: "config" };
/**
 * The resource families whose routes name an instance a scope can grant on its own (agno's
 * get_resource_context_from_path): `agents:web:run` runs agent `web`. Every other family is
 * granted as a whole, so `sessions:s1:read` grants nothing, as in agno.
 */
export const PER_INSTANCE_RESOURCES: ReadonlySet<string> = new Set(["agents", "teams", "workflows"]);

/** One scope as agno's parse_scope reads it. */
export interface ParsedScope {
  kind: "admin" | "global" | "per_resource" | "unknown";
  resource?: string;
  /** the instance of a per-resource scope: an id, or `*` for all */
  id?: string;
  action?: string;
}

export function parseScope(scope: string): ParsedScope {
  if (scope === ADMIN_SCOPE) return { kind: "admin" };
  const parts = scope.split(":");
  const resource = LEGACY_RESOURCES[parts[0]!] ?? parts[0]!;
  if (parts.length === 2) return { kind: "global", resource, action: parts[1] };
  if (parts.length === 3) return { kind: "per_resource", resource, id: parts[1], action: parts[2] };
  return { kind: "unknown" };
}

/** agno's matches_scope: whether one granted scope covers `resource:action` (on instance `id`, when the route has one). */
function covers(granted: ParsedScope, resource: string, action: string, id: string | undefined): boolean {
  if (granted.kind === "admin") return true;
  if (granted.kind === "unknown" || granted.resource !== resource || granted.action !== action) return false;
  // agno tests the id for truthiness: `agents::run` reads as the global `agents:run`.
  const whole = !granted.id || granted.id === "*";
  return whole || (id !== undefined && granted.id === id);
}

/**
 * agno's scope grammar (agno/os/scopes.py): `resource:action` grants every instance,
 * `resource:<id>:action` one instance of an agent, team or workflow, `resource:*:action` every
 * instance, `system:` is read as `config:`, and only the exact `agent_os:admin` grants
 * everything (a route that needs it needs exactly it). Strings of any other shape grant nothing.
 * `id` is the instance a route touches; it counts only for PER_INSTANCE_RESOURCES.
 */
export function hasScope(principal: Principal, resource: string, action: string, id?: string): boolean {
  if (principal.admin) return true;
  if (parseScope(`${resource}:${action}`).kind === "admin") return false;
  const instance = PER_INSTANCE_RESOURCES.has(resource) ? id : undefined;
  return principal.scopes.some((scope) => covers(parseScope(scope), resource, action, instance));
}

/** The scope a route needs, as its documentation and its 403 name it (`{param}` for a per-instance family's path parameter). */
export function scopeText(resource: string, action: string, instance?: string): string {
  return instance !== undefined && PER_INSTANCE_RESOURCES.has(resource)
    ? `${resource}:${instance}:${action}`
    : `${resource}:${action}`;
}

export function principalOf(c: Context<OSEnv>): Principal {
  return c.get("principal");
}

/** Route guard: 403 unless the caller holds the scope (for `idParam`'s instance, or the fixed `instance`, when given). */
export function requireScope(
  resource: string,
  action: string,
  idParam?: string,
  instance?: string,
): MiddlewareHandler<OSEnv> {
  return async (c, next) => {
    const id = idParam ? c.req.param(idParam) : instance;
    if (!hasScope(principalOf(c), resource, action, id)) {
      throw new ForbiddenError(`this needs the scope ${scopeText(resource, action, id)}`);
    }
    await next();
  };
}

/**
 * agno's get_scoped_user_id, the one answer to "whose rows may this caller touch": a service
 * account always to its own principal, and with user isolation a non-admin to their own user id, and one without a user identity is
 * refused (403) rather than left unscoped, which would mean every user's rows. `undefined`
 * means no scoping (an admin, or isolation off).
 */
export function scopedUserId(c: Context<OSEnv>): string | undefined {
  const principal = principalOf(c);
  if (principal.admin) return undefined;
  // A service account is scoped to itself whether or not isolation is on, as in agno.
  if (principal.userId?.startsWith(SERVICE_ACCOUNT_PRINCIPAL)) return principal.userId;
  if (!c.get("userIsolation")) return undefined;
  if (!principal.userId) throw new ForbiddenError("Authenticated request is missing a user identity");
  return principal.userId;
}

/**
 * The user a data call is scoped to. With isolation on, a non-admin is always scoped to
 * themselves, whatever `user_id` the request names; otherwise the request's `user_id` filters.
 */
export function effectiveUserId(c: Context<OSEnv>, requested: string | undefined): string | undefined {
  return scopedUserId(c) ?? requested;
}

/**
 * The user filter of a read. With isolation a non-admin reads their own rows and the shared ones
 * (rows that belong to no user, SPEC U2); writes use `effectiveUserId`, so only admins edit those.
 */
export function readScope(
  c: Context<OSEnv>,
  requested: string | undefined,
): { userId?: string; includeShared?: boolean } {
  const scoped = scopedUserId(c);
  if (scoped !== undefined) return { userId: scoped, includeShared: true };
  return requested === undefined ? {} : { userId: requested };
}
