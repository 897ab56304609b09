import { z } from "zod";
import { ValidationError } from "../errors.js";
import { sortOrderOf } from "./pagination.js";
import type { ListServiceAccountsOptions, ServiceAccountRecord } from "./ports/service-account-store.js";
import { validateId } from "./validate.js";

/** agno's SERVICE_ACCOUNT_NAME_PATTERN: a lowercase slug (no `:`, no leading `_`, no `@` or dots), at most 63 characters. */
export const SERVICE_ACCOUNT_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
/** agno's SERVICE_ACCOUNT_SORTABLE_COLUMNS; any other `sort_by` sorts by `created_at`, as agno clamps it. */
const SORTABLE = new Set(["created_at", "name", "last_used_at", "expires_at"]);
/** A use is written at most this often per account (agno's last_used_write_interval). */
export const TOUCH_INTERVAL_SECONDS = 60;

const epoch = z
  .int()
  .min(0)
  .max(2 ** 53 - 1);
const record = z.object({
  id: z.string(),
  name: z.string().regex(SERVICE_ACCOUNT_NAME, "must be a lowercase slug (letters, digits, _ or -; at most 63)"),
  user_id: z.string().nullable(),
  token_hash: z.string().regex(/^[0-9a-f]{64}$/, "must be a SHA-256 in lowercase hex"),
  token_prefix: z.string().min(1).max(32),
  scopes: z.array(z.string().min(1).max(200)).max(200),
  created_at: epoch,
  expires_at: epoch.nullable(),
  last_used_at: epoch.nullable(),
  revoked_at: epoch.nullable(),
  created_by: z.string().max(255).nullable(),
});

/** A new account checked as every adapter checks it before storing it (a 422 naming the field). */
export function checkServiceAccount(account: ServiceAccountRecord): ServiceAccountRecord {
  validateId(account.id, "id");
  if (account.user_id !== null) validateId(account.user_id, "user_id");
  const parsed = record.safeParse(account);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.join(".");
    throw new ValidationError(`service account ${field}: ${issue.message}`, field);
  }
  return parsed.data;
}

/** A listing's options resolved: the sort column clamped to agno's list, the order checked. */
export function serviceAccountSort(opts: ListServiceAccountsOptions): {
  column: "created_at" | "name" | "last_used_at" | "expires_at";
  order: "asc" | "desc";
} {
  const column = opts.sortBy !== undefined && SORTABLE.has(opts.sortBy) ? opts.sortBy : "created_at";
  return { column: column as "created_at", order: sortOrderOf(opts.sortOrder) };
}

/** The version an audit row gives an account: `active`, then `revoked` (an account is never changed otherwise). */
export const serviceAccountVersion = (a: Pick<ServiceAccountRecord, "revoked_at">): string =>
  a.revoked_at === null ? "active" : "revoked";
