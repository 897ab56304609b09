import type { MiddlewareHandler } from "hono";
import type { OSEnv } from "../context.js";
import { errorResponse } from "../errors.js";
import { JwtError, type JwtVerifier, type Principal } from "./jwt.js";

/**
 * How requests are authenticated. `none` must be chosen explicitly (local development);
 * with no mode configured every protected route answers 401, so a deployment that forgot its
 * secrets is closed, not open.
 */
export type AuthConfig =
  | { mode: "none" }
  | { mode: "security_key"; securityKey: string }
  | { mode: "jwt"; verifier: JwtVerifier; userIsolation?: boolean }
  | { mode: "unconfigured" };

/** Routes that answer without credentials: the landing body, health and `/info`. */
const PUBLIC_PATHS = new Set(["/", "/health", "/info"]);

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
    c.set("userIsolation", config.mode === "jwt" && config.userIsolation === true);
    if (PUBLIC_PATHS.has(c.req.path) || config.mode === "none") return next();
    if (config.mode === "unconfigured") {
      return errorResponse(c, 401, "authentication is not configured: set OS_SECURITY_KEY or JWT_VERIFICATION_KEYS (or AGNO_AUTH=none for local development)", "unauthorized");
    }
    const header = c.req.header("authorization") ?? "";
    const match = /^Bearer +([^\s]+)$/i.exec(header);
    if (!match) return errorResponse(c, 401, "missing bearer token", "unauthorized");
    const token = match[1]!;
    if (config.mode === "security_key") {
      if (!timingSafeEqual(token, config.securityKey)) return errorResponse(c, 401, "invalid bearer token", "unauthorized");
      return next();
    }
    try {
      c.set("principal", await config.verifier.verify(token));
    } catch (error) {
      if (error instanceof JwtError) return errorResponse(c, 401, error.message, "unauthorized");
      throw error;
    }
    return next();
  };
}
