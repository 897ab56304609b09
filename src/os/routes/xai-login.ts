import { z } from "zod";
import { ForbiddenError } from "../../errors.js";
import type { XAITokenManager } from "../../models/xai/xai-token-manager.js";
import type { OSEnv } from "../context.js";
import type { Context } from "hono";
import { principalOf } from "../auth/scopes.js";
import { defineRoute, errorSchema, handle, jsonBody, routeApp } from "../route.js";

const tags: ["Models"] = ["Models"];
const json = (schema: z.ZodType, description: string) => ({ description, content: { "application/json": { schema } } });
/** Signing in is what a user does to run agents on their own subscription. */
const scope = { resource: "agents", action: "run" } as const;

const loginSchema = z.object({
  login_token: z.string().describe("Give this back to the poll route; it only works for you"),
  user_code: z.string(),
  verification_uri: z.string(),
  verification_uri_complete: z.string(),
  expires_in: z.number().int(),
  interval: z.number().int().describe("Seconds to wait between polls"),
});
const pollSchema = z.object({
  status: z.enum(["PENDING", "SUCCESS", "DENIED", "EXPIRED"]),
  interval: z.number().int().describe("Seconds to wait before the next poll"),
  message: z.string().optional(),
});

const start = defineRoute({
  method: "post",
  path: "/models/xai/login",
  tags,
  summary: "Start SuperGrok Sign-in",
  description:
    "Starts an xAI device sign-in (RFC 8628) for the caller: show user_code and verification_uri, then poll. A token's user signs in for themselves; a caller with no user identity (the security key, auth off) signs in the deployment's own session, which users without one fall back to.",
  scope,
  responses: { 200: json(loginSchema, "The codes to show") },
});

const poll = defineRoute({
  method: "post",
  path: "/models/xai/login/poll",
  tags,
  summary: "Poll SuperGrok Sign-in",
  description: "One poll of a sign-in this caller started; SUCCESS stores the session (encrypted).",
  scope,
  request: {
    body: jsonBody(
      z.object({ login_token: z.string().max(4096), interval: z.number().int().min(0).max(600).optional() }).strict(),
    ),
  },
  responses: { 200: json(pollSchema, "Where the sign-in stands"), 400: json(errorSchema, "Not this caller's sign-in") },
});

const status = defineRoute({
  method: "get",
  path: "/models/xai/login",
  tags,
  summary: "SuperGrok Sign-in Status",
  scope,
  responses: { 200: json(z.object({ signed_in: z.boolean() }), "Whether the caller has a session") },
});

const signOut = defineRoute({
  method: "delete",
  path: "/models/xai/login",
  tags,
  summary: "SuperGrok Sign-out",
  description: "Forgets the caller's session here (revoke the grant itself at xAI).",
  scope,
  responses: { 204: { description: "Signed out" } },
});

/** Whose session a request touches: the token's user, or the deployment's for a caller with no identity that is admin. */
function slotOf(c: Context<OSEnv>): string {
  const principal = principalOf(c);
  if (principal.userId) return principal.userId;
  if (principal.admin) return "";
  throw new ForbiddenError("SuperGrok sign-in needs a user identity");
}

export type XaiLoginRoutes = ReturnType<typeof routeApp>;

/**
 * The SuperGrok sign-in routes, each acting on the caller's own session only.
 *
 * @example
 * new AgentOS({ agents, auth, xaiLogin: xaiLoginRoutes(tokens) });
 */
export function xaiLoginRoutes(tokens: XAITokenManager): XaiLoginRoutes {
  const app = routeApp();
  handle(app, start, async (c) => c.json(await tokens.startSealedLogin(slotOf(c)), 200));
  handle(app, poll, async (c) => {
    const body = c.req.valid("json");
    return c.json(await tokens.pollSealedLogin(body.login_token, slotOf(c), body.interval ?? 5), 200);
  });
  handle(app, status, async (c) => c.json({ signed_in: await tokens.hasSession(slotOf(c)) }, 200));
  handle(app, signOut, async (c) => {
    await tokens.signOut(slotOf(c));
    return c.body(null, 204);
  });
  return app;
}
