import type { Component } from "../../agent/component.js";
import { ValidationError } from "../../errors.js";
import type { ChatInterface, InterfaceJobDeps } from "../chat-interface.js";
import type { InterfaceRouteDeps } from "../os-interface.js";
import type { ReplyTarget } from "../reply-target.js";
import type { RunFollower } from "../run-follower.js";
import { TelegramApi, type TelegramUser } from "./telegram-api.js";
import { telegramFollower } from "./telegram-follower.js";
import { telegramRoutes } from "./telegram-routes.js";
import type { TelegramTarget } from "./telegram-target.js";
import { oneComponent } from "../one-component.js";

// agno's defaults (os/interfaces/telegram/router.py).
export const DEFAULT_START_MESSAGE = "Hello! I'm ready to help. Send me a message to get started.";
export const DEFAULT_HELP_MESSAGE = "Send me text, photos, voice notes, or documents and I'll help you with them.";
export const DEFAULT_ERROR_MESSAGE = "Sorry, there was an error processing your message.";

export interface TelegramOptions {
  /** the agent, team or workflow that answers; exactly one */
  agent?: Component;
  team?: Component;
  workflow?: Component;
  /** the bot's token from @BotFather (`123456:ABC…`) */
  token: string;
  /**
   * the `secret_token` given to setWebhook: every update must carry it in
   * `X-Telegram-Bot-Api-Secret-Token` (1-256 of A-Z a-z 0-9 _ -). Required: without it anyone
   * could post updates as Telegram.
   */
  webhookSecret: string;
  /** default https://api.telegram.org */
  apiUrl?: string;
  /** default "/telegram" */
  prefix?: string;
  /** in groups, answer only messages that mention the bot or reply to it (default true); private chats are always answered */
  replyToMentionsOnly?: boolean;
  startMessage?: string;
  helpMessage?: string;
  /** posted when a run fails */
  errorMessage?: string;
  /** Telegram user ids that may answer anyone's approval requests, admin-only ones too */
  admins?: string[];
  /** largest file a user may send that is given to the run (default 20 MB, Telegram's own download limit for bots) */
  maxFileBytes?: number;
  /** largest update body accepted (default 256 KiB); larger is a 413 */
  maxBodyBytes?: number;
  /** the bot's @username (without @), to spot mentions in groups; asked of Telegram (getMe) once when not given */
  botUsername?: string;
}

const TOKEN = /^\d{1,20}:[A-Za-z0-9_-]{20,100}$/;
const SECRET = /^[A-Za-z0-9_-]{1,256}$/;

/**
 * agno's Telegram interface: a bot whose webhook turns chat messages into runs of an agent, team
 * or workflow on the durable queue, answered in the chat by the job. Paused runs post Approve and
 * Reject buttons; only the user who asked, or a configured admin, may press them.
 *
 * @example
 * new Telegram({ agent, token: env.TELEGRAM_BOT_TOKEN, webhookSecret: env.TELEGRAM_WEBHOOK_SECRET })
 */
export class Telegram implements ChatInterface {
  readonly type = "telegram";
  readonly version = "1.0";
  readonly prefix: string;
  readonly component: Component;
  get components(): readonly Component[] {
    return [this.component];
  }
  readonly api: TelegramApi;
  readonly webhookSecret: string;
  readonly replyToMentionsOnly: boolean;
  readonly startMessage: string;
  readonly helpMessage: string;
  readonly errorMessage: string;
  readonly admins: ReadonlySet<string>;
  readonly maxFileBytes: number;
  readonly maxBodyBytes: number;
  private me?: Promise<TelegramUser>;
  private readonly botUsername?: string;

  constructor(opts: TelegramOptions) {
    this.component = oneComponent("Telegram", opts);
    // The values are secrets: the messages say what is wrong, never what was given.
    if (typeof opts.token !== "string" || !TOKEN.test(opts.token))
      throw new ValidationError("Telegram needs the bot's token from @BotFather (digits:letters)", "token");
    if (typeof opts.webhookSecret !== "string" || !SECRET.test(opts.webhookSecret))
      throw new ValidationError(
        "Telegram needs a webhookSecret of 1-256 characters A-Z a-z 0-9 _ - (the setWebhook secret_token)",
        "webhookSecret",
      );
    const positive = (n: number | undefined, name: string) => {
      if (n !== undefined && !(Number.isSafeInteger(n) && n > 0))
        throw new ValidationError(`Telegram ${name} must be a positive whole number`, name);
    };
    positive(opts.maxFileBytes, "maxFileBytes");
    positive(opts.maxBodyBytes, "maxBodyBytes");
    this.prefix = opts.prefix ?? "/telegram";
    this.api = new TelegramApi({ token: opts.token, ...(opts.apiUrl ? { apiUrl: opts.apiUrl } : {}) });
    this.webhookSecret = opts.webhookSecret;
    this.replyToMentionsOnly = opts.replyToMentionsOnly ?? true;
    this.startMessage = opts.startMessage ?? DEFAULT_START_MESSAGE;
    this.helpMessage = opts.helpMessage ?? DEFAULT_HELP_MESSAGE;
    this.errorMessage = opts.errorMessage ?? DEFAULT_ERROR_MESSAGE;
    this.admins = new Set(opts.admins ?? []);
    this.maxFileBytes = opts.maxFileBytes ?? 20 * 1024 * 1024;
    this.maxBodyBytes = opts.maxBodyBytes ?? 256 * 1024;
    this.botUsername = opts.botUsername?.replace(/^@/, "");
  }

  /** The bot's @username, asked of Telegram once per isolate (a failed ask is asked again next time). */
  async username(): Promise<string> {
    if (this.botUsername) return this.botUsername;
    this.me ??= this.api.getMe().catch((error: unknown) => {
      this.me = undefined;
      throw error;
    });
    return (await this.me).username ?? "";
  }

  routes(deps: InterfaceRouteDeps) {
    return telegramRoutes(this, deps);
  }

  follow(target: ReplyTarget, _deps: InterfaceJobDeps): RunFollower {
    return telegramFollower(
      {
        api: this.api,
        componentType: this.component.ref.type,
        errorMessage: this.errorMessage,
        maxFileBytes: this.maxFileBytes,
      },
      target as TelegramTarget,
    );
  }
}
