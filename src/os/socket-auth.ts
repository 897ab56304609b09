import type { Context } from "hono";
import type { Principal } from "./auth/jwt.js";
import { principalOfToken, serviceAccounts, type AuthConfig } from "./auth/middleware.js";
import { principalOf } from "./auth/scopes.js";
import { isServiceAccountKey, principalOfServiceAccountKey } from "./auth/service-account-keys.js";
import type { OSEnv } from "./context.js";
import { errorResponse } from "./errors.js";

/** How long a socket that has not authenticated is kept open, and how many failed tries it gets. */
export const AUTH_DEADLINE_MS = 30_000;
export const MAX_AUTH_FAILURES = 5;
/** Until it authenticates, a socket acts for nobody: no scopes, no user. */
export const NOBODY: Principal = { userId: null, scopes: [], admin: false };

/** The answer to any upgrade when the deployment cannot check credentials at all (misconfigured, or no auth set up). */
export function deploymentRefusal(c: Context<OSEnv>, auth: AuthConfig): Response | undefined {
  if (auth.mode === "closed")
    return errorResponse(c, auth.status, auth.reason, auth.status === 401 ? "unauthorized" : "misconfigured");
  if (auth.mode === "unconfigured") return errorResponse(c, 401, "authentication is not configured", "unauthorized");
  return undefined;
}

/**
 * Who a WebSocket upgrade speaks for, on a socket route that may authenticate after the upgrade
 * (a browser cannot set headers on one): the bearer header's principal, the open deployment's
 * (auth off), or null when it brought no credentials and must send them in a message. A refused
 * header, or a deployment that cannot check credentials at all, is the Response to answer with.
 */
export async function upgradePrincipal(c: Context<OSEnv>, auth: AuthConfig): Promise<Principal | null | Response> {
  if (auth.mode === "closed" || auth.mode === "unconfigured") return deploymentRefusal(c, auth)!;
  const bearer = /^Bearer +([^\s]+)$/i.exec(c.req.header("authorization") ?? "")?.[1];
  if (auth.mode === "none") {
    // With auth off a service-account key still speaks for its account, within its scopes (as over HTTP).
    if (!bearer || !isServiceAccountKey(bearer)) return principalOf(c);
    const account = await principalOfServiceAccountKey(serviceAccounts(c), bearer);
    return typeof account === "string" ? errorResponse(c, 401, account, "unauthorized") : account;
  }
  // No header: the credentials come in a message. A header that is not a bearer token is refused, as over HTTP.
  if (!bearer)
    return c.req.header("authorization") === undefined
      ? null
      : errorResponse(c, 401, "the Authorization header is not a bearer token", "unauthorized");
  const found = await principalOfToken(auth, bearer, serviceAccounts(c));
  return typeof found === "string" ? errorResponse(c, 401, found, "unauthorized") : found;
}

/**
 * Who the token of an `authenticate` message speaks for, or why it is refused; with auth off,
 * the open deployment's principal.
 */
export async function messagePrincipal(
  c: Context<OSEnv>,
  auth: AuthConfig,
  token: string,
): Promise<Principal | string> {
  if (auth.mode === "security_key" || auth.mode === "jwt") return principalOfToken(auth, token, serviceAccounts(c));
  if (auth.mode === "none") return principalOf(c);
  return "authentication is not configured";
}
