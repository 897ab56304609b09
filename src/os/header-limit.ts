import type { MiddlewareHandler } from "hono";
import { errorResponse } from "./errors.js";

/**
 * Refuses a request whose URL and headers together exceed `maxBytes` with 431, before any
 * other work (auth, a JWT's parsing, routing). The edge has its own, larger limit; this one is
 * the runtime's, so Node hosts get it too.
 */
export function headerLimit(maxBytes: number): MiddlewareHandler {
  return async (c, next) => {
    let size = c.req.url.length;
    c.req.raw.headers.forEach((value, name) => {
      size += name.length + value.length + 4;
    });
    if (size > maxBytes)
      return errorResponse(c, 431, `request URL and headers are larger than ${maxBytes} bytes`, "headers_too_large");
    await next();
  };
}
