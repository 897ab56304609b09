import type { Context } from "hono";
import { z } from "zod";
import type { ServiceAccountRecord } from "../../db/port.js";
import { SERVICE_ACCOUNT_NAME } from "../../db/service-account-rules.js";
import { BadRequestError, ForbiddenError, NotFoundError } from "../../errors.js";
import { nowSeconds } from "../../time.js";
import { auditPrincipal } from "../audit.js";
import { ADMIN_SCOPE, hasScope, parseScope, principalOf, scopedUserId } from "../auth/scopes.js";
import { newServiceAccountKey, serviceAccountPrincipal } from "../auth/service-account-keys.js";
import type { OSEnv } from "../context.js";
import { errorResponse } from "../errors.js";
import { defineRoute, handle, idSchema, jsonAnswer, jsonBody, routeApp } from "../route.js";
import { paginationInfo } from "../wire/paginated.js";
import {
  serviceAccountCreateResponseSchema,
  serviceAccountListSchema,
  serviceAccountResponseSchema,
} from "../wire/service-accounts.js";
import { dbFor } from "./sessions.js";

const tags: ["Service Accounts"] = ["Service Accounts"];
/** agno's DEFAULT_SERVICE_ACCOUNT_SCOPES: run and read, nothing broader unless asked for. */
export const DEFAULT_SERVICE_ACCOUNT_SCOPES = [
  "agents:run",
  "teams:run",
  "workflows:run",
  "sessions:read",
  "config:read",
];
/** agno's DEFAULT_EXPIRY_DAYS. */
const DEFAULT_EXPIRY_DAYS = 90;
const PRIVILEGED_ACTIONS = new Set(["write", "delete"]);

/** agno's ScopeItem: one grant in the shared RBAC write shape (only `allow` for a key's scopes). */
const scopeItem = z.strictObject({
  scope: z.string().min(1).max(200),
  effect: z.enum(["allow", "deny"]).default("allow"),
});
/** agno's ServiceAccountCreate. */
const createBody = z.strictObject({
  name: z
    .string()
    .max(63)
    .regex(
      SERVICE_ACCOUNT_NAME,
      "Name must be a lowercase slug: start with a letter or digit, then letters, digits, '_' or '-' (max 63 chars)",
    ),
  scopes: z
    .array(scopeItem)
    .max(200)
    .nullable()
    .optional()
    .refine(
      (items) => (items ?? []).every((i) => i.effect === "allow"),
      "Token scopes are grants: effect must be 'allow'",
    ),
  expires_in_days: z.int().min(1).max(3650).nullable().optional(),
  never_expires: z.boolean().default(false),
  allow_privileged_scopes: z.boolean().default(false),
});
const TRUE_WORDS = ["true", "1", "yes", "on", "t", "y"] as const;
const FALSE_WORDS = ["false", "0", "no", "off", "f", "n"] as const;
const listQuery = z.object({
  include_revoked: z.enum([...TRUE_WORDS, ...FALSE_WORDS]).default("true"),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  page: z.coerce.number().int().min(1).default(1),
  sort_by: z.string().max(64).default("created_at"),
  sort_order: z.enum(["asc", "desc"]).default("desc"),
});
const accountPath = z.object({ service_account_id: idSchema });

const create = defineRoute({
  method: "post",
  path: "/service-accounts",
  tags,
  summary: "Mint a service account: a machine principal (sa:<name>) with scoped API key, shown exactly once",
  scope: { resource: "service_accounts", action: "write" },
  request: { body: jsonBody(createBody) },
  responses: {
    201: jsonAnswer(serviceAccountCreateResponseSchema, "The account and its key (store the key now)"),
    400: { description: "An unknown scope, or a privileged one without allow_privileged_scopes" },
    409: { description: "An active account of this name exists (revoke it first to rotate)" },
  },
});
const list = defineRoute({
  method: "get",
  path: "/service-accounts",
  tags,
  summary: "Service accounts (a page): metadata and display prefixes, never keys or their hashes",
  scope: { resource: "service_accounts", action: "read" },
  request: { query: listQuery },
  responses: { 200: jsonAnswer(serviceAccountListSchema, "A page of service accounts") },
});
const revoke = defineRoute({
  method: "delete",
  path: "/service-accounts/{service_account_id}",
  tags,
  summary: "Revoke a service account: its key is refused from the next request on (idempotent)",
  scope: { resource: "service_accounts", action: "delete" },
  request: { params: accountPath },
  responses: { 204: { description: "Revoked" }, 404: { description: "No such service account for this caller" } },
});

/** agno's split_scope: the parts a scope renders as (legacy `system:` as `config`). */
function scopeView(raw: string) {
  const parts = raw.split(":");
  const namespace = parts[0] === "system" ? "config" : parts[0]!;
  if (parts.length === 2)
    return { id: null, raw, namespace, sub_namespace: null, permission: parts[1]!, value: "allow" };
  if (parts.length >= 3)
    return {
      id: null,
      raw,
      namespace,
      sub_namespace: parts.slice(1, -1).join(":"),
      permission: parts[parts.length - 1]!,
      value: "allow",
    };
  return { id: null, raw, namespace, sub_namespace: null, permission: "unknown", value: "allow" };
}

/** An account over HTTP: agno's ServiceAccountResponse (the hash never leaves the store). */
const view = (a: ServiceAccountRecord): z.infer<typeof serviceAccountResponseSchema> => ({
  id: a.id,
  name: a.name,
  principal: serviceAccountPrincipal(a.name),
  user_id: a.user_id,
  token_prefix: a.token_prefix,
  scopes: a.scopes.map(scopeView),
  created_at: a.created_at,
  expires_at: a.expires_at,
  last_used_at: a.last_used_at,
  revoked_at: a.revoked_at,
  created_by: a.created_by,
});

/**
 * agno's mint-time checks: every scope parses, privileged ones (any write or delete, the admin
 * scope, anything over service_accounts) need `allow_privileged_scopes`, and a caller that is
 * not admin grants only scopes it holds itself, so a key is never stronger than whoever minted it.
 */
function checkScopes(c: Context<OSEnv>, scopes: string[], allowPrivileged: boolean): void {
  const invalid = scopes.filter((s) => {
    const p = parseScope(s);
    return p.kind === "unknown" || (p.kind !== "admin" && (!p.resource || !p.action));
  });
  if (invalid.length > 0) throw new BadRequestError(`Invalid scope(s): ${invalid.join(", ")}`);
  const privileged = scopes.filter((s) => {
    const p = parseScope(s);
    return (
      p.kind === "admin" ||
      s === ADMIN_SCOPE ||
      PRIVILEGED_ACTIONS.has(p.action ?? "") ||
      p.resource === "service_accounts"
    );
  });
  if (privileged.length > 0 && !allowPrivileged)
    throw new BadRequestError(
      `Privileged scope(s) require allow_privileged_scopes=true: ${privileged.join(", ")}. Privileged tokens must be deliberate, never accidental.`,
    );
  const principal = principalOf(c);
  if (principal.admin) return;
  const notHeld = scopes.filter((s) => {
    const p = parseScope(s);
    if (p.kind === "admin") return true;
    const id = p.kind === "per_resource" && p.id && p.id !== "*" ? p.id : undefined;
    // A wildcard grant is held only by a caller holding the wildcard (or the global) scope.
    if (p.kind === "per_resource" && p.id === "*")
      return !principal.scopes.some((h) => {
        const q = parseScope(h);
        return q.resource === p.resource && q.action === p.action && (q.kind === "global" || !q.id || q.id === "*");
      });
    return !hasScope(principal, p.resource!, p.action!, id);
  });
  if (notHeld.length > 0) throw new ForbiddenError(`Cannot grant scope(s) you do not hold: ${notHeld.join(", ")}`);
}

/** `/service-accounts` in agno's paths and shapes: mint, list, revoke (SPEC issue 22). */
export function serviceAccountRoutes() {
  const app = routeApp();

  handle(app, create, async (c) => {
    // A key outlives the moment: one minted while auth is off would stay a credential after auth is turned on.
    if (c.get("credential") === "none")
      return errorResponse(c, 401, "authentication is required to mint a service account", "unauthorized");
    const body = c.req.valid("json");
    const scopes = body.scopes ? [...new Set(body.scopes.map((s) => s.scope))] : DEFAULT_SERVICE_ACCOUNT_SCOPES;
    checkScopes(c, scopes, body.allow_privileged_scopes);
    const now = nowSeconds();
    const expires = body.never_expires ? null : now + (body.expires_in_days ?? DEFAULT_EXPIRY_DAYS) * 86_400;
    const { key, hash, prefix } = await newServiceAccountKey();
    const owner = principalOf(c).userId;
    const account = await dbFor(c).serviceAccounts.create(
      {
        id: crypto.randomUUID(),
        name: body.name,
        user_id: owner,
        token_hash: hash,
        token_prefix: prefix,
        scopes,
        created_at: now,
        expires_at: expires,
        last_used_at: null,
        revoked_at: null,
        created_by: owner,
      },
      auditPrincipal(c),
    );
    return c.json({ ...view(account), token: key }, 201);
  });

  handle(app, list, async (c) => {
    const q = c.req.valid("query");
    const page = await dbFor(c).serviceAccounts.list(
      {
        includeRevoked: (TRUE_WORDS as readonly string[]).includes(q.include_revoked),
        limit: q.limit,
        page: q.page,
        sortBy: q.sort_by,
        sortOrder: q.sort_order,
      },
      { userId: scopedUserId(c) },
    );
    return c.json({ data: page.data.map(view), meta: paginationInfo(page) });
  });

  handle(app, revoke, async (c) => {
    const { service_account_id: id } = c.req.valid("param");
    const store = dbFor(c).serviceAccounts;
    const scoped = scopedUserId(c);
    const existing = await store.get(id, { userId: scoped });
    if (!existing) throw new NotFoundError(`Service account '${id}' not found`);
    // The scoped read also returns workspace-level accounts, which no single user may revoke.
    if (scoped !== undefined && existing.user_id === null)
      throw new ForbiddenError("Cannot revoke a workspace-level service account");
    await store.revoke(id, nowSeconds(), auditPrincipal(c));
    return c.body(null, 204);
  });
  return app;
}
