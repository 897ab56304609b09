import type { Component } from "../../agent/component.js";
import { ValidationError } from "../../errors.js";
import type { ChatInterface, InterfaceJobDeps } from "../chat-interface.js";
import type { InterfaceRouteDeps } from "../os-interface.js";
import type { ReplyTarget } from "../reply-target.js";
import type { RunFollower } from "../run-follower.js";
import { WhatsAppApi } from "./whatsapp-api.js";
import { whatsappFollower, type WhatsAppReply } from "./whatsapp-follower.js";
import { whatsappRoutes } from "./whatsapp-routes.js";
import { oneComponent } from "../one-component.js";

/** The Graph API version agno's WhatsApp interface calls. */
export const DEFAULT_WHATSAPP_API_URL = "https://graph.facebook.com/v25.0";

export interface WhatsAppOptions {
  agent?: Component;
  team?: Component;
  workflow?: Component;
  /** a System User's (or the app's temporary) access token: WHATSAPP_ACCESS_TOKEN */
  accessToken: string;
  /** the business number's id in the Cloud API (not the number itself): WHATSAPP_PHONE_NUMBER_ID */
  phoneNumberId: string;
  /** the text Meta's webhook verification must echo: WHATSAPP_VERIFY_TOKEN */
  verifyToken: string;
  /** the Meta app's secret, which signs every delivery: WHATSAPP_APP_SECRET */
  appSecret: string;
  /** the Graph API base, version included (default https://graph.facebook.com/v25.0): WHATSAPP_API_URL */
  apiUrl?: string;
  /** where the routes are mounted (default /whatsapp) */
  prefix?: string;
  /** WhatsApp ids that may answer any run's buttons, admin-only requirements too */
  admins?: string[];
  /** largest file a user sends that is read, in bytes (default 20 MiB, the runs' own bound); larger ones are skipped with a note */
  maxFileBytes?: number;
  /** largest delivery read, in bytes (default 1 MiB) */
  maxBodyBytes?: number;
  /** a message older than this when delivered (Meta redelivers for days) starts nothing (default 7 days) */
  maxMessageAgeSeconds?: number;
  /** how long one Cloud API call may take, in ms (default 30000, agno's media_timeout) */
  timeoutMs?: number;
}

/**
 * agno's WhatsApp interface on the Cloud API: a message to the business number becomes a
 * background run of the agent, team or workflow, answered in the same chat; a run that pauses
 * for a confirmation posts Approve / Reject buttons whose press continues it. Each sender has
 * their own session and is the run's user (their WhatsApp id).
 *
 * @example
 * new WhatsApp({ agent, accessToken: env.WHATSAPP_ACCESS_TOKEN, phoneNumberId: env.WHATSAPP_PHONE_NUMBER_ID,
 *   verifyToken: env.WHATSAPP_VERIFY_TOKEN, appSecret: env.WHATSAPP_APP_SECRET })
 */
export class WhatsApp implements ChatInterface {
  readonly type = "whatsapp";
  readonly version = "1.0";
  readonly prefix: string;
  readonly component: Component;
  get components(): readonly Component[] {
    return [this.component];
  }
  readonly verifyToken: string;
  readonly appSecret: string;
  readonly phoneNumberId: string;
  readonly admins: readonly string[];
  readonly maxFileBytes: number;
  readonly maxBodyBytes: number;
  readonly maxMessageAgeSeconds: number;
  private readonly api: WhatsAppApi;

  constructor(opts: WhatsAppOptions) {
    this.component = oneComponent("WhatsApp", opts);
    // Named, never quoted: these are secrets.
    for (const key of ["accessToken", "phoneNumberId", "verifyToken", "appSecret"] as const)
      if (typeof opts[key] !== "string" || opts[key].trim() === "")
        throw new ValidationError(`WhatsApp needs ${key}`, key);
    const apiUrl = opts.apiUrl ?? DEFAULT_WHATSAPP_API_URL;
    if (!/^https?:\/\/[^\s/]+/.test(apiUrl))
      throw new ValidationError("WhatsApp apiUrl must be an http(s) URL", "apiUrl");
    for (const key of ["maxFileBytes", "maxBodyBytes", "maxMessageAgeSeconds", "timeoutMs"] as const) {
      const v = opts[key];
      if (v !== undefined && !(Number.isSafeInteger(v) && v > 0))
        throw new ValidationError(`WhatsApp ${key} must be a positive whole number`, key);
    }
    this.prefix = opts.prefix ?? "/whatsapp";
    this.verifyToken = opts.verifyToken;
    this.appSecret = opts.appSecret;
    this.phoneNumberId = opts.phoneNumberId;
    this.admins = [...(opts.admins ?? [])];
    this.maxFileBytes = opts.maxFileBytes ?? 20 * 1024 * 1024;
    this.maxBodyBytes = opts.maxBodyBytes ?? 1024 * 1024;
    this.maxMessageAgeSeconds = opts.maxMessageAgeSeconds ?? 7 * 86_400;
    this.api = new WhatsAppApi({
      apiUrl,
      accessToken: opts.accessToken,
      phoneNumberId: opts.phoneNumberId,
      timeoutMs: opts.timeoutMs ?? 30_000,
    });
  }

  routes(deps: InterfaceRouteDeps) {
    return whatsappRoutes(this, deps);
  }

  follow(target: ReplyTarget, _deps: InterfaceJobDeps): RunFollower {
    return whatsappFollower(this.api, target as WhatsAppReply, { maxFileBytes: this.maxFileBytes });
  }
}
