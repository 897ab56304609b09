/**
 * One stored OAuth session, as agno's `agno_auth_tokens` row: keyed by provider, user and
 * service (the empty user id is the deployment's own slot); `token_data` holds the envelope,
 * encrypted (`{encrypted: "<Fernet token>"}`) unless encryption was switched off.
 */
export interface AuthTokenRow {
  provider: string;
  user_id: string;
  service: string;
  token_data: Record<string, unknown>;
  granted_scopes: string[] | null;
  created_at?: number;
  updated_at?: number;
}

/** Where OAuth sessions are kept (the port behind `XAITokenManager`). */
export interface AuthTokenStore {
  getAuthToken(provider: string, userId: string, service: string): Promise<AuthTokenRow | null>;
  upsertAuthToken(row: AuthTokenRow): Promise<void>;
  /** true when a row was there */
  deleteAuthToken(provider: string, userId: string, service: string): Promise<boolean>;
}
