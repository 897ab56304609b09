import type { Page } from "../types.js";

/**
 * A machine principal (agno's ServiceAccount): its key is never stored, only the key's SHA-256
 * (`token_hash`) and its first characters for display (`token_prefix`).
 */
export interface ServiceAccountRecord {
  id: string;
  /** a lowercase slug; the principal is `sa:<name>` */
  name: string;
  /** the user the account belongs to; null for a workspace-level account */
  user_id: string | null;
  token_hash: string;
  token_prefix: string;
  scopes: string[];
  /** epoch seconds, as every timestamp here */
  created_at: number;
  expires_at: number | null;
  last_used_at: number | null;
  revoked_at: number | null;
  /** who minted it (audit), distinct from the owner */
  created_by: string | null;
}

export interface ListServiceAccountsOptions {
  includeRevoked?: boolean;
  limit?: number;
  page?: number;
  sortBy?: string;
  sortOrder?: "asc" | "desc";
}

/** Whose accounts a call may see: one user's (and the workspace-level ones, read only), or all. */
export interface ServiceAccountScope {
  userId?: string;
}

/**
 * Service accounts, reached as `db.serviceAccounts`. Creating and revoking also append their
 * audit row (db.audit) in the same statement, so neither is ever stored without the other.
 */
export interface ServiceAccountStore {
  /** stores a new account; ConflictError while an active account of its name exists */
  create(account: ServiceAccountRecord, by: string | null): Promise<ServiceAccountRecord>;
  /** one account, when `scope` may see it (the owner's, or a workspace-level one) */
  get(id: string, scope?: ServiceAccountScope): Promise<ServiceAccountRecord | null>;
  list(opts?: ListServiceAccountsOptions, scope?: ServiceAccountScope): Promise<Page<ServiceAccountRecord>>;
  /** the account whose key hashes to `tokenHash`, revoked or not (the caller decides) */
  byTokenHash(tokenHash: string): Promise<ServiceAccountRecord | null>;
  /** sets `revoked_at` once (revocation is one way); answers the account as it now is, or null when there is none */
  revoke(id: string, at: number, by: string | null): Promise<ServiceAccountRecord | null>;
  /** records a use, at most once a minute per account */
  touch(id: string, at: number): Promise<void>;
}

export interface ServiceAccountStorage {
  readonly serviceAccounts: ServiceAccountStore;
}
