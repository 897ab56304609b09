import type { ServiceAccountRecord, ServiceAccountStore } from "../../db/port.js";
import { sha256Hex } from "../../sha256.js";
import { nowSeconds } from "../../time.js";
import type { Principal } from "./jwt.js";
import { ADMIN_SCOPE } from "./scopes.js";

/** agno's TOKEN_PREFIX: keys are recognised by it (and secret scanners can find them). */
export const SERVICE_ACCOUNT_KEY_PREFIX = "agno_pat_";
/** agno's TOKEN_DISPLAY_PREFIX_LENGTH: the prefix plus 7 random characters are kept for display. */
const DISPLAY_PREFIX_LENGTH = 16;
/** agno's principal namespace for service accounts. */
export const SERVICE_ACCOUNT_PRINCIPAL_PREFIX = "sa:";
/** No key is longer than this (the prefix and 43 base62 characters); a longer bearer is refused before hashing. */
const MAX_KEY_LENGTH = 128;
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

function base62(bytes: Uint8Array): string {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  let out = "";
  while (n > 0n) {
    out = BASE62[Number(n % 62n)]! + out;
    n /= 62n;
  }
  return out || "0";
}

/** The only form of a key that is stored: its SHA-256, lowercase hex (agno's hash_token). */
export const hashServiceAccountKey = (key: string): Promise<string> => sha256Hex(key);

/** A new key (agno's generate_token: `agno_pat_` and 32 random bytes in base62), its hash and its display prefix. */
export async function newServiceAccountKey(): Promise<{ key: string; hash: string; prefix: string }> {
  const key = SERVICE_ACCOUNT_KEY_PREFIX + base62(crypto.getRandomValues(new Uint8Array(32)));
  return { key, hash: await hashServiceAccountKey(key), prefix: key.slice(0, DISPLAY_PREFIX_LENGTH) };
}

export const isServiceAccountKey = (token: string): boolean => token.startsWith(SERVICE_ACCOUNT_KEY_PREFIX);

export const serviceAccountPrincipal = (name: string): string => `${SERVICE_ACCOUNT_PRINCIPAL_PREFIX}${name}`;

/** Compares two hashes in time independent of where they differ. */
function sameHash(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.min(a.length, b.length); i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * Who a service-account key speaks for, or why it is refused. The account is read from the
 * database on every request, with no cache: a revocation is seen by the next request in every
 * isolate. Its scopes are the account's, enforced in every auth mode (as agno enforces them).
 */
export async function principalOfServiceAccountKey(
  store: ServiceAccountStore | undefined,
  key: string,
  touch?: (p: Promise<unknown>) => void,
): Promise<Principal | string> {
  if (!store) return "service account keys need a database";
  if (key.length > MAX_KEY_LENGTH || !/^agno_pat_[0-9A-Za-z]+$/.test(key))
    return "Invalid or expired service account token";
  const hash = await hashServiceAccountKey(key);
  const account: ServiceAccountRecord | null = await store.byTokenHash(hash);
  const now = nowSeconds();
  if (
    !account ||
    !sameHash(account.token_hash, hash) ||
    account.revoked_at !== null ||
    (account.expires_at !== null && account.expires_at <= now)
  )
    return "Invalid or expired service account token";
  if (account.last_used_at === null || account.last_used_at <= now - 60) {
    const touched = store.touch(account.id, now).catch(() => undefined);
    touch?.(touched);
  }
  return {
    userId: serviceAccountPrincipal(account.name),
    scopes: [...account.scopes],
    admin: account.scopes.includes(ADMIN_SCOPE),
    ...(account.expires_at !== null && { expiresAt: account.expires_at * 1000 }),
  };
}
