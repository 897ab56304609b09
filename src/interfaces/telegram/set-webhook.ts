import { ValidationError } from "../../errors.js";
import { TelegramApi } from "./telegram-api.js";

export interface SetWebhookOptions {
  token: string;
  /** the setWebhook secret_token: the interface's webhookSecret */
  secret: string;
  apiUrl?: string;
  /** the deployed Worker's base URL (https://my-agent.example.workers.dev) or the full webhook URL */
  url: string;
  /** the interface's prefix (default "/telegram") */
  prefix?: string;
}

/**
 * Points the bot's webhook at a deployment: setWebhook with the secret Telegram then sends in
 * every update's header, for the two update kinds the interface handles. Returns the webhook URL
 * set and Telegram's answer (which never contains the token).
 */
export async function setTelegramWebhook(opts: SetWebhookOptions): Promise<{ url: string; result: unknown }> {
  let base: URL;
  try {
    base = new URL(opts.url);
  } catch {
    throw new ValidationError(`${opts.url} is not a URL: give the deployment's base URL`, "url");
  }
  if (base.protocol !== "https:" && base.hostname !== "127.0.0.1" && base.hostname !== "localhost")
    throw new ValidationError("Telegram only delivers to https:// webhooks", "url");
  const prefix = opts.prefix ?? "/telegram";
  const path = base.pathname.replace(/\/+$/, "");
  const url = path.endsWith(`${prefix}/webhook`) ? `${base.origin}${path}` : `${base.origin}${path}${prefix}/webhook`;
  const api = new TelegramApi({ token: opts.token, ...(opts.apiUrl ? { apiUrl: opts.apiUrl } : {}) });
  const result = await api.call("setWebhook", {
    url,
    secret_token: opts.secret,
    allowed_updates: ["message", "callback_query"],
  });
  return { url, result };
}
