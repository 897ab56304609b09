import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { AGNO_DEFAULT_ORIGINS } from "./cors-origins.js";

/**
 * Headers a browser page may read beyond the CORS-safelisted ones: when to retry a 429, and a
 * media download's file name. (agno exposes `*`, which browsers take literally on a request with
 * credentials, so the names are listed.)
 */
const EXPOSED_HEADERS = ["Retry-After", "Content-Disposition"];

/**
 * CORS for agno's origins and `extra` (Hono's middleware, configured as agno's CORSMiddleware:
 * credentials, every method, the requested headers). A request from any other origin, or with no
 * Origin, passes untouched: it gets no Access-Control-Allow-Origin. A preflight from an allowed
 * origin is answered here, before authentication (browsers send it without credentials); the
 * request it announces still goes through authentication, and its errors carry the CORS headers
 * so the page can read them.
 */
export function corsMiddleware(extra: readonly string[] = []): MiddlewareHandler {
  const allowed = new Set([...AGNO_DEFAULT_ORIGINS, ...extra]);
  const handler = cors({
    origin: (origin) => (allowed.has(origin) ? origin : null),
    credentials: true,
    // Starlette's answer to allow_methods=["*"].
    allowMethods: ["DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT"],
    // No list: the headers the preflight asks for are allowed (agno's allow_headers=["*"]).
    exposeHeaders: EXPOSED_HEADERS,
    // Starlette's default: a page's preflights are cached for ten minutes.
    maxAge: 600,
  });
  return async (c, next) => {
    const origin = c.req.header("origin");
    if (origin === undefined || !allowed.has(origin)) return next();
    // CORS does not govern WebSockets: an upgrade answers 101 as it is (its socket authenticates itself).
    if (c.req.header("upgrade")?.toLowerCase() === "websocket") return next();
    // An OPTIONS that is not a preflight is an ordinary request (and so needs credentials).
    if (c.req.method === "OPTIONS" && !c.req.header("access-control-request-method")) return next();
    return handler(c, next);
  };
}
