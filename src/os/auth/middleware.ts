import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { OSEnv } from "../context.js";
import { errorResponse } from "../errors.js";
import type { ServiceAccountStore } from "../../db/port.js";
import { JwtError, type JwtVerifier, type Principal } from "./jwt.js";
import { isServiceAccountKey, principalOfServiceAccountKey } from "./service-account-keys.js";

/**
 * How requests are authenticated. `none` must be chosen explicitly (local development);
 * with no mode configured every protected route answers 401, so a deployment that forgot its
 * secrets is closed, not open.
 */
export type AuthConfig =
  | { mode: "none" }
  | { mode: "security_key"; securityKey: string }
  | { mode: "jwt"; verifier: JwtVerifier; userIsolation?: boolean }
  | { mode: "unconfigured" }
  /** the deployment's settings are wrong: every protected route answers `status` with `reason` */
  | { mode: "closed"; status: 401 | 503; reason: string };

/**
 * The mark `defineRoute({scope: null})` puts on a route: the only way a route becomes public. The
 * middleware below looks for it among the handlers matched for the request, so a route added any
 * other way (or a path no route matches) still needs credentials.
 */
export const publicRoute: MiddlewareHandler = async (_c, next) => next();

/** Callers with the key (or with auth off) are trusted like admins: they act for any user. */
const TRUSTED: Principal = { userId: null, scopes: [], admin: true };

const encoder = new TextEncoder();

/** Compares secrets in time independent of where they differ. */
export function timingSafeEqual(a: string, b: string): boolean {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i % x.length] ?? 0) ^ (y[i % y.length] ?? 0);
  return diff === 0;
}

export function authMiddleware(config: AuthConfig): MiddlewareHandler<OSEnv> {
  return async (c, next) => {
    c.set("principal", TRUSTED);
    c.set("credential", config.mode === "none" ? "none" : "security_key");
    c.set("userIsolation", config.mode === "jwt" && config.userIsolation === true);
    if (matchedRoutes(c).some((r) => r.handler === publicRoute)) return next();
    const header = c.req.header("authorization") ?? "";
    const match = /^Bearer +([^\s]+)$/i.exec(header);
    if (config.mode === "none") {
      // With auth off a service-account key still speaks for its account, within its scopes (as agno's open instance verifies one when presented).
      if (!match || !isServiceAccountKey(match[1]!)) return next();
      const principal = await principalOfServiceAccountKey(serviceAccounts(c), match[1]!, waitUntil(c));
      if (typeof principal === "string") return errorResponse(c, 401, principal, "unauthorized");
      c.set("principal", principal);
      c.set("credential", "service_account");
      return next();
    }
    if (config.mode === "closed")
      return errorResponse(c, config.status, config.reason, config.status === 401 ? "unauthorized" : "misconfigured");
    if (config.mode === "unconfigured") {
      return errorResponse(
        c,
        401,
        "authentication is not configured: set OS_SECURITY_KEY or JWT_VERIFICATION_KEYS (or AGNO_AUTH=none for local development)",
        "unauthorized",
      );
    }
    if (!match) return errorResponse(c, 401, "missing bearer token", "unauthorized");
    const principal = await principalOfToken(config, match[1]!, serviceAccounts(c), waitUntil(c));
    if (typeof principal === "string") return errorResponse(c, 401, principal, "unauthorized");
    c.set("principal", principal);
    c.set("credential", isServiceAccountKey(match[1]!) ? "service_account" : config.mode);
    return next();
  };
}

/** The default database's service accounts, where keys are looked up (none without a database). */
export const serviceAccounts = (c: Context<OSEnv>): ServiceAccountStore | undefined => c.env?.dbs?.[0]?.serviceAccounts;

/** The host's waitUntil, for a key's use-time write that the answer need not wait for. */
function waitUntil(c: Context<OSEnv>): ((p: Promise<unknown>) => void) | undefined {
  try {
    const ctx = c.executionCtx;
    return (p) => ctx.waitUntil(p);
  } catch {
    return undefined;
  }
}

/**
 * Who a bearer token speaks for under a key or JWT configuration, or why it is refused (the
 * reason a 401 gives). A service-account key (`agno_pat_…`) is recognised by its prefix in either
 * mode and looked up in `store`. Also used by sockets that authenticate with a message after the upgrade.
 */
export async function principalOfToken(
  config: Extract<AuthConfig, { mode: "security_key" | "jwt" }>,
  token: string,
  store?: ServiceAccountStore,
  touch?: (p: Promise<unknown>) => void,
): Promise<Principal | string> {
  if (isServiceAccountKey(token)) return principalOfServiceAccountKey(store, token, touch);
  if (config.mode === "security_key")
    return timingSafeEqual(token, config.securityKey) ? TRUSTED : "invalid bearer token";
  try {
    return await config.verifier.verify(token);
  } catch (error) {
    if (error instanceof JwtError) return error.message;
    throw error;
  }
}
