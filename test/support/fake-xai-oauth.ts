import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

/** How a device code answers its polls: `pending` polls (some of them `slow_down`) before `outcome`. */
export interface DeviceScript {
  pending?: number;
  slowDownAt?: number[];
  outcome: "approve" | "deny" | "expire";
  /** the access token lifetime the grant reports */
  expiresIn?: number;
}

export interface FakeXaiOAuth {
  issuer: string;
  /** the next device login answers as scripted */
  scriptDevice(script: DeviceScript): void;
  /** every form posted, in order */
  forms: Array<{ path: string; form: Record<string, string> }>;
  /** revokes a refresh token: its next use gets invalid_grant */
  revoke(refreshToken: string): void;
  /** access tokens issued so far */
  issued: string[];
  stop(): Promise<void>;
}

/**
 * An OAuth server speaking RFC 8628 (device authorization grant) and RFC 6749's refresh grant
 * as auth.x.ai does: form-encoded requests, JSON answers, `{error}` bodies with status 400, and
 * refresh tokens rotated on each use.
 */
export async function startFakeXaiOAuth(): Promise<FakeXaiOAuth> {
  const forms: FakeXaiOAuth["forms"] = [];
  const issued: string[] = [];
  const queued: DeviceScript[] = [];
  const devices = new Map<string, DeviceScript & { polls: number }>();
  const refreshTokens = new Map<string, { expiresIn: number }>();
  let counter = 0;

  const grant = (expiresIn: number, first: boolean) => {
    const n = ++counter;
    const access = `xai-access-${n}-${Math.random().toString(36).slice(2)}`;
    const refresh = `xai-refresh-${n}`;
    issued.push(access);
    refreshTokens.set(refresh, { expiresIn });
    return {
      access_token: access,
      refresh_token: refresh,
      ...(first && { id_token: `id-${n}` }),
      token_type: "Bearer",
      expires_in: expiresIn,
      scope: "openid profile email offline_access grok-cli:access api:access",
    };
  };

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const path = new URL(req.url ?? "/", "http://local").pathname;
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.headers["content-type"] !== "application/x-www-form-urlencoded")
      return json(res, 400, { error: "invalid_request", error_description: "form body expected" });
    const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString("utf8")));
    forms.push({ path, form });
    if (req.method === "POST" && path === "/oauth2/device/code") {
      if (!form.client_id || !form.scope) return json(res, 400, { error: "invalid_request" });
      const script = queued.shift() ?? { outcome: "approve" };
      const device = `dev-${++counter}`;
      devices.set(device, { ...script, polls: 0 });
      return json(res, 200, {
        device_code: device,
        user_code: `CODE-${counter}`,
        verification_uri: "https://accounts.x.ai/device",
        verification_uri_complete: `https://accounts.x.ai/device?user_code=CODE-${counter}`,
        expires_in: 1800,
        interval: 5,
      });
    }
    if (req.method === "POST" && path === "/oauth2/token") {
      if (form.grant_type === "urn:ietf:params:oauth:grant-type:device_code") {
        const d = devices.get(form.device_code ?? "");
        if (!d) return json(res, 400, { error: "invalid_grant" });
        d.polls++;
        if (d.polls <= (d.pending ?? 0))
          return json(res, 400, { error: d.slowDownAt?.includes(d.polls) ? "slow_down" : "authorization_pending" });
        devices.delete(form.device_code!);
        if (d.outcome === "deny") return json(res, 400, { error: "access_denied" });
        if (d.outcome === "expire") return json(res, 400, { error: "expired_token" });
        return json(res, 200, grant(d.expiresIn ?? 21600, true));
      }
      if (form.grant_type === "refresh_token") {
        const known = refreshTokens.get(form.refresh_token ?? "");
        if (!known) return json(res, 400, { error: "invalid_grant", error_description: "refresh token revoked" });
        refreshTokens.delete(form.refresh_token!);
        return json(res, 200, grant(known.expiresIn, false));
      }
      return json(res, 400, { error: "unsupported_grant_type" });
    }
    json(res, 404, { error: "not_found" });
  }

  const server = createServer((req, res) => void handle(req, res).catch(() => res.destroy()));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    issuer: `http://127.0.0.1:${port}`,
    scriptDevice: (s) => void queued.push(s),
    forms,
    issued,
    revoke: (t) => void refreshTokens.delete(t),
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((e) => (e ? reject(e) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" }).end(JSON.stringify(body));
}
