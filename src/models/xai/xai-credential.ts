import { NO_TOKEN_MESSAGE, type XAITokenManager } from "./xai-token-manager.js";
import { XaiAuthError } from "./xai-auth-error.js";

/** How an xAI model finds its SuperGrok token. */
export interface XaiOAuthOptions {
  tokenManager?: XAITokenManager;
  /** refuse the deployment's own session for a user who has not signed in; default false (they fall back to it) */
  requireUserToken?: boolean;
}

/**
 * The `headersFor` hook of an xAI model: the run's user's SuperGrok token, else the deployment's
 * session (unless `requireUserToken`), else the API key when there is one (no header: the
 * provider's own Authorization stays), else a clear error to sign in.
 */
export function xaiHeadersFor(
  oauth: XaiOAuthOptions,
  hasApiKey: boolean,
): ((call: { userId?: string }) => Promise<Record<string, string> | undefined>) | undefined {
  const manager = oauth.tokenManager;
  if (!manager) return undefined;
  return async ({ userId }) => {
    const slots = userId ? (oauth.requireUserToken ? [userId] : [userId, ""]) : [""];
    for (const slot of slots) {
      try {
        return { Authorization: `Bearer ${await manager.getAccessToken(slot)}` };
      } catch (error) {
        // Only an absent session falls through; a revoked or unreadable one is the user's to fix.
        if (!(error instanceof XaiAuthError && error.reason === "no_token")) throw error;
      }
    }
    if (hasApiKey && !(userId && oauth.requireUserToken)) return undefined;
    throw new XaiAuthError(
      userId && oauth.requireUserToken
        ? `User '${userId}' has not signed in with SuperGrok. ${NO_TOKEN_MESSAGE}`
        : NO_TOKEN_MESSAGE,
      "no_token",
    );
  };
}
