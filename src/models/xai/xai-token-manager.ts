import { NotConfiguredError } from "../../errors.js";
import type { AuthTokenStore } from "./auth-token-store.js";
import { fernetDecrypt, fernetEncrypt } from "./fernet.js";
import { MemoryAuthTokenStore } from "./memory-auth-token-store.js";
import { XaiAuthError } from "./xai-auth-error.js";

export const XAI_OAUTH_ISSUER = "https://auth.x.ai";
/** the public Grok client agno signs in with (no client secret) */
export const XAI_OAUTH_CLIENT_ID = "b1a00492-073a-47ea-816f-4c329264a828";
export const XAI_OAUTH_SCOPE = "openid profile email offline_access grok-cli:access api:access";
/** a token closer than this to its expiry is refreshed before use */
export const REFRESH_MARGIN_SECONDS = 300;

const EXPIRED_LOGIN = "The SuperGrok sign-in code expired (30 minutes). Start the login again.";
const INVALID_GRANT =
  "SuperGrok session expired or was revoked. Sign in again (run the device login), or set XAI_API_KEY to use pay-per-token access.";
export const NO_TOKEN_MESSAGE =
  "No SuperGrok token found. Sign in with the device login, or set XAI_API_KEY to use pay-per-token access.";

/** What a user needs to finish a device sign-in (RFC 8628 section 3.2). */
export interface DeviceLoginInfo {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

export type DevicePollStatus = "PENDING" | "SUCCESS" | "DENIED" | "EXPIRED";

/** One poll's outcome and the seconds to wait before the next (raised by 5 after `slow_down`). */
export interface DevicePollResult {
  status: DevicePollStatus;
  interval: number;
  message?: string;
}

/** The stored session, as agno's envelope. */
export interface XaiTokenEnvelope {
  access_token: string;
  refresh_token?: string | null;
  id_token?: string | null;
  token_type: string;
  scope: string;
  expires_at: number;
  token_endpoint: string;
}

export interface XAITokenManagerOptions {
  /** where sessions are kept; default this isolate's memory */
  store?: AuthTokenStore;
  /** a Fernet key (`generateEncryptionKey`), conventionally the `XAI_TOKEN_ENCRYPTION_KEY` secret */
  encryptionKey?: string;
  /** false stores tokens in the clear: local development only */
  encryptTokens?: boolean;
  /** the OAuth server; its device code and token endpoints are `/oauth2/device/code` and `/oauth2/token` */
  issuer?: string;
  deviceCodeUrl?: string;
  tokenUrl?: string;
  clientId?: string;
  scope?: string;
  /** per request to the OAuth server; default 30 s */
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** seconds since the epoch */
  now?: () => number;
}

/**
 * SuperGrok sign-in for the xAI models, as agno's `XAITokenManager`: the device-code flow
 * (RFC 8628), sessions stored per user and encrypted at rest, and access tokens refreshed before
 * they expire. The empty user id is the deployment's own slot, which a user without a session of
 * their own falls back to (unless the model requires a user token).
 *
 * @example
 * const tokens = new XAITokenManager({ store, encryptionKey: env.XAI_TOKEN_ENCRYPTION_KEY });
 * const login = await tokens.startDeviceLogin();      // show login.user_code and login.verification_uri
 * const poll = await tokens.pollOnce(login.device_code, login.interval, userId); // until SUCCESS
 */
export class XAITokenManager {
  private readonly store: AuthTokenStore;
  private readonly cache = new Map<string, { accessToken: string; expiresAt: number }>();
  private readonly inflight = new Map<string, Promise<string>>();
  private readonly deviceCodeUrl: string;
  private readonly tokenUrl: string;
  private readonly clientId: string;
  private readonly scope: string;
  private readonly now: () => number;

  constructor(private readonly opts: XAITokenManagerOptions = {}) {
    this.store = opts.store ?? new MemoryAuthTokenStore();
    const issuer = (opts.issuer ?? XAI_OAUTH_ISSUER).replace(/\/+$/, "");
    this.deviceCodeUrl = opts.deviceCodeUrl ?? `${issuer}/oauth2/device/code`;
    this.tokenUrl = opts.tokenUrl ?? `${issuer}/oauth2/token`;
    this.clientId = opts.clientId ?? XAI_OAUTH_CLIENT_ID;
    this.scope = opts.scope ?? XAI_OAUTH_SCOPE;
    this.now = opts.now ?? (() => Date.now() / 1000);
    // A Worker has no disk to fall back to: refuse up front rather than lose a sign-in the user just approved.
    if (opts.encryptTokens !== false && !opts.encryptionKey)
      throw new NotConfiguredError(
        "SuperGrok tokens are encrypted at rest: set XAI_TOKEN_ENCRYPTION_KEY (a Fernet key, see generateEncryptionKey) or pass encryptTokens: false for local development",
      );
  }

  /** Starts a device sign-in: the codes and the URL to show the user. */
  async startDeviceLogin(): Promise<DeviceLoginInfo> {
    const res = await this.post(this.deviceCodeUrl, { client_id: this.clientId, scope: this.scope });
    if (res.status !== 200) throw new XaiAuthError(`SuperGrok device login could not be started: ${res.text}`);
    const d = res.json as Record<string, unknown>;
    if (typeof d.device_code !== "string" || typeof d.user_code !== "string" || typeof d.verification_uri !== "string")
      throw new XaiAuthError(`SuperGrok device login answered without its codes: ${res.text}`);
    return {
      device_code: d.device_code,
      user_code: d.user_code,
      verification_uri: d.verification_uri,
      // Optional in RFC 8628: the plain URI, where the user types the code
      verification_uri_complete:
        typeof d.verification_uri_complete === "string" ? d.verification_uri_complete : d.verification_uri,
      expires_in: typeof d.expires_in === "number" ? d.expires_in : 1800,
      interval: typeof d.interval === "number" ? d.interval : 5,
    };
  }

  /** One poll of the token endpoint, no waiting; SUCCESS stores the session for `userId`. */
  async pollOnce(deviceCode: string, interval = 5, userId = ""): Promise<DevicePollResult> {
    const res = await this.post(this.tokenUrl, {
      grant_type: "urn:ietf:params:oauth:grant-type:device_code",
      device_code: deviceCode,
      client_id: this.clientId,
    });
    if (res.status === 200) {
      await this.save(this.envelope(res.json, null), userId);
      return { status: "SUCCESS", interval };
    }
    switch (errorCode(res.json)) {
      case "authorization_pending":
        return { status: "PENDING", interval };
      case "slow_down":
        return { status: "PENDING", interval: interval + 5 };
      case "access_denied":
        return { status: "DENIED", interval, message: "SuperGrok sign-in was denied in the browser." };
      case "expired_token":
        return { status: "EXPIRED", interval, message: EXPIRED_LOGIN };
      default:
        throw new XaiAuthError(`SuperGrok device login failed: ${res.text}`);
    }
  }

  /**
   * A device sign-in for a caller who polls through us later (an HTTP client): the device code
   * goes back sealed with the user and the code's deadline, so only that user can finish it.
   */
  async startSealedLogin(userId: string): Promise<Omit<DeviceLoginInfo, "device_code"> & { login_token: string }> {
    const { device_code, ...info } = await this.startDeviceLogin();
    const sealed = { d: device_code, u: userId, x: Math.floor(this.now()) + info.expires_in };
    return { ...info, login_token: await fernetEncrypt(this.sealingKey(), JSON.stringify(sealed)) };
  }

  /** One poll of a sealed sign-in, for the user who started it. */
  async pollSealedLogin(loginToken: string, userId: string, interval = 5): Promise<DevicePollResult> {
    let sealed: { d?: unknown; u?: unknown; x?: unknown };
    try {
      sealed = JSON.parse(await fernetDecrypt(this.sealingKey(), loginToken)) as typeof sealed;
    } catch {
      throw new XaiAuthError("login_token is not one this deployment issued");
    }
    if (sealed.u !== userId || typeof sealed.d !== "string")
      throw new XaiAuthError("login_token belongs to another sign-in");
    if (typeof sealed.x !== "number" || this.now() > sealed.x)
      return { status: "EXPIRED", interval, message: EXPIRED_LOGIN };
    return this.pollOnce(sealed.d, interval, userId);
  }

  private sealingKey(): string {
    if (!this.opts.encryptionKey)
      throw new NotConfiguredError(
        "SuperGrok sign-in over HTTP needs XAI_TOKEN_ENCRYPTION_KEY to seal its login tokens",
      );
    return this.opts.encryptionKey;
  }

  /** Polls until the user approves, denies, or `deadline` (seconds since the epoch) passes. */
  async pollForToken(deviceCode: string, interval: number, deadline: number, userId = ""): Promise<void> {
    for (let wait = interval; ;) {
      if (this.now() > deadline) throw new XaiAuthError(EXPIRED_LOGIN);
      const result = await this.pollOnce(deviceCode, wait, userId);
      if (result.status === "SUCCESS") return;
      if (result.message) throw new XaiAuthError(result.message);
      wait = result.interval;
      await new Promise((resolve) => setTimeout(resolve, wait * 1000));
    }
  }

  /** The user's access token, refreshed first when it is within the margin of its expiry. */
  async getAccessToken(userId = ""): Promise<string> {
    const cached = this.cache.get(userId);
    if (cached && this.fresh(cached.expiresAt)) return cached.accessToken;
    return this.singleFlight(userId, async () => {
      const stored = await this.load(userId);
      if (stored && this.fresh(stored.expires_at)) {
        this.cache.set(userId, { accessToken: stored.access_token, expiresAt: stored.expires_at });
        return stored.access_token;
      }
      return this.refresh(stored, userId);
    });
  }

  /** Refreshes now, whatever the expiry says (after the API refused the token). */
  forceRefresh(userId = ""): Promise<string> {
    return this.singleFlight(userId, async () => this.refresh(await this.load(userId), userId));
  }

  /** Whether the user has a stored session (the deployment slot for the empty id). */
  async hasSession(userId = ""): Promise<boolean> {
    return (await this.load(userId)) !== null;
  }

  /** Forgets the user's session here (the grant itself lives on until it expires or is revoked at xAI). */
  async signOut(userId = ""): Promise<void> {
    await this.store.deleteAuthToken("xai", userId, "supergrok");
    this.cache.delete(userId);
  }

  private singleFlight(userId: string, work: () => Promise<string>): Promise<string> {
    const running = this.inflight.get(userId);
    if (running) return running;
    const p = work().finally(() => this.inflight.delete(userId));
    this.inflight.set(userId, p);
    return p;
  }

  private async refresh(previous: XaiTokenEnvelope | null, userId: string): Promise<string> {
    if (!previous?.refresh_token) throw new XaiAuthError(NO_TOKEN_MESSAGE, "no_token");
    const res = await this.post(this.tokenUrl, {
      grant_type: "refresh_token",
      refresh_token: previous.refresh_token,
      client_id: this.clientId,
    });
    if (res.status === 200) {
      const envelope = this.envelope(res.json, previous);
      // The refresh token may have rotated: keep the newest at once
      await this.save(envelope, userId);
      return envelope.access_token;
    }
    if (errorCode(res.json) === "invalid_grant") {
      await this.signOut(userId);
      throw new XaiAuthError(INVALID_GRANT, "invalid_grant");
    }
    throw new XaiAuthError(`SuperGrok token refresh failed: ${res.text}`);
  }

  private envelope(body: unknown, previous: XaiTokenEnvelope | null): XaiTokenEnvelope {
    const b = (body ?? {}) as Record<string, unknown>;
    // A 200 is no promise of a token (a proxy's page, an error in a 200)
    if (typeof b.access_token !== "string") throw new XaiAuthError("SuperGrok token response is missing access_token");
    const str = (v: unknown) => (typeof v === "string" && v ? v : undefined);
    return {
      access_token: b.access_token,
      refresh_token: str(b.refresh_token) ?? previous?.refresh_token ?? null,
      // Only the first grant carries an id token
      id_token: str(b.id_token) ?? previous?.id_token ?? null,
      token_type: str(b.token_type) ?? "Bearer",
      scope: str(b.scope) ?? this.scope,
      expires_at: Math.floor(this.now()) + (typeof b.expires_in === "number" ? b.expires_in : 21600),
      token_endpoint: this.tokenUrl,
    };
  }

  private fresh(expiresAt: number): boolean {
    return expiresAt - this.now() > REFRESH_MARGIN_SECONDS;
  }

  private async save(envelope: XaiTokenEnvelope, userId: string): Promise<void> {
    const token_data =
      this.opts.encryptTokens === false
        ? { ...envelope }
        : { encrypted: await fernetEncrypt(this.opts.encryptionKey!, JSON.stringify(envelope)) };
    await this.store.upsertAuthToken({
      provider: "xai",
      user_id: userId,
      service: "supergrok",
      token_data,
      granted_scopes: envelope.scope.split(/\s+/).filter(Boolean),
    });
    this.cache.set(userId, { accessToken: envelope.access_token, expiresAt: envelope.expires_at });
  }

  private async load(userId: string): Promise<XaiTokenEnvelope | null> {
    const row = await this.store.getAuthToken("xai", userId, "supergrok");
    if (!row) return null;
    const data = row.token_data;
    if (!(typeof data.encrypted === "string" && Object.keys(data).length === 1))
      return data as unknown as XaiTokenEnvelope;
    try {
      if (!this.opts.encryptionKey) throw new Error("XAI_TOKEN_ENCRYPTION_KEY is not set");
      return JSON.parse(await fernetDecrypt(this.opts.encryptionKey, data.encrypted)) as XaiTokenEnvelope;
    } catch {
      // An identified user's unreadable session must not read as absent: that would bill the shared one.
      if (userId)
        throw new XaiAuthError(
          `A stored SuperGrok session for user '${userId}' could not be read (the encryption key may have changed). Sign in again, or restore the key it was saved with.`,
        );
      return null;
    }
  }

  private async post(
    url: string,
    form: Record<string, string>,
  ): Promise<{ status: number; text: string; json: unknown }> {
    const res = await (this.opts.fetch ?? fetch)(url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: new URLSearchParams(form).toString(),
      signal: AbortSignal.timeout(this.opts.timeoutMs ?? 30_000),
    });
    const text = (await res.text()).slice(0, 64 * 1024);
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      json = null;
    }
    return { status: res.status, text: text.slice(0, 500), json };
  }
}

function errorCode(body: unknown): string | undefined {
  const e = (body as { error?: unknown } | null)?.error;
  return typeof e === "string" ? e : undefined;
}
