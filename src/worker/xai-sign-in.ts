import { PostgresAuthTokenStore, type SqlQueryable } from "../models/xai/postgres-auth-token-store.js";
import { XAITokenManager } from "../models/xai/xai-token-manager.js";
import { xaiLoginRoutes, type XaiLoginRoutes } from "../os/routes/xai-login.js";
import type { WorkerConfig } from "./env-config.js";
import { newPool } from "./open-db.js";

/** SuperGrok sign-in in a Worker: the token manager the xAI models read, and the routes users sign in with. */
export interface XaiSignIn {
  tokenManager: XAITokenManager;
  routes: XaiLoginRoutes;
}

/**
 * A connection per statement. A Worker's Pool may not outlive the request that opened it, and the
 * token manager lives for the isolate; sign-ins and refreshes are rare (access tokens are cached
 * until close to their expiry), so a short connection for each costs little.
 */
function connectionPerQuery(config: WorkerConfig & { databaseUrl: string }): SqlQueryable {
  return {
    async query(text, params) {
      const pool = newPool(config, 1);
      try {
        return await pool.query(text, params);
      } finally {
        await pool.end();
      }
    },
  };
}

/**
 * SuperGrok sign-in from the deployment's settings (XAI_TOKEN_ENCRYPTION_KEY, XAI_OAUTH_ISSUER),
 * with sessions in agno's `agno_auth_tokens` table of DATABASE_URL; undefined when not configured.
 *
 * @example
 * defineAgentOS({ agents, xaiLogin: (env, config) => xaiSignIn(config)?.routes });
 */
export function xaiSignIn(config: WorkerConfig): XaiSignIn | undefined {
  if (!config.xai || !config.databaseUrl) return undefined;
  const tokenManager = new XAITokenManager({
    store: new PostgresAuthTokenStore(connectionPerQuery({ ...config, databaseUrl: config.databaseUrl }), {
      ...(config.dbSchema ? { schema: config.dbSchema } : {}),
    }),
    encryptionKey: config.xai.encryptionKey,
    ...(config.xai.issuer ? { issuer: config.xai.issuer } : {}),
  });
  return { tokenManager, routes: xaiLoginRoutes(tokenManager) };
}
