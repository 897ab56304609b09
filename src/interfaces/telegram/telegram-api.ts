import { readCapped } from "../../read-capped.js";
import { AgnoError } from "../../errors.js";

export const DEFAULT_TELEGRAM_API_URL = "https://api.telegram.org";

/**
 * Telegram refused or failed a call. The message names the method and Telegram's description,
 * never the URL: the bot token is part of it.
 */
export class TelegramApiError extends AgnoError {
  override readonly status = 502;
  override readonly errorId = "telegram_api_error";
  constructor(
    readonly method: string,
    /** Telegram's error_code (its HTTP status), or 0 when it could not be reached */
    readonly code: number,
    description: string,
    /** Telegram's `parameters.retry_after` on a 429 */
    readonly retryAfter?: number,
  ) {
    super(`Telegram ${method} failed${code ? ` (${code})` : ""}: ${description}`);
  }
}

export interface TelegramApiOptions {
  token: string;
  /** default https://api.telegram.org (a local Bot API server, or a fake in tests) */
  apiUrl?: string;
  /** how long a call may take (default 10 s) */
  timeoutMs?: number;
}

/** A Telegram user or bot, as getMe answers. */
export interface TelegramUser {
  id: number;
  is_bot?: boolean;
  username?: string;
  first_name?: string;
}

/** The reply keyboard Telegram draws under a message. */
export interface InlineKeyboard {
  inline_keyboard: Array<Array<{ text: string; callback_data: string }>>;
}

/** A sendMessage, as this interface uses it. */
export interface SendMessageParams {
  chat_id: number | string;
  text: string;
  parse_mode?: "HTML";
  message_thread_id?: number;
  reply_parameters?: { message_id: number; allow_sending_without_reply?: boolean };
  reply_markup?: InlineKeyboard;
  link_preview_options?: { is_disabled: boolean };
}

/**
 * The Bot API over plain `fetch` (Workers and Node alike): `POST {apiUrl}/bot<token>/<method>`
 * with a JSON body, answers `{ok, result}` or `{ok: false, error_code, description}`.
 */
export class TelegramApi {
  readonly apiUrl: string;
  private readonly token: string;
  private readonly timeoutMs: number;

  constructor(opts: TelegramApiOptions) {
    this.token = opts.token;
    this.apiUrl = (opts.apiUrl ?? DEFAULT_TELEGRAM_API_URL).replace(/\/+$/, "");
    this.timeoutMs = opts.timeoutMs ?? 10_000;
  }

  /** The bot's own user id: the token's first part. */
  get botId(): number {
    return Number(this.token.split(":", 1)[0]);
  }

  async call<T>(method: string, params: object, opts: { timeoutMs?: number } = {}): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${this.apiUrl}/bot${this.token}/${method}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(params),
        signal: AbortSignal.timeout(opts.timeoutMs ?? this.timeoutMs),
      });
    } catch (error) {
      // The fetch error's text may carry the address, and the address carries the token.
      const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
      throw new TelegramApiError(method, 0, timedOut ? "timed out" : "could not be reached");
    }
    let body: {
      ok?: boolean;
      result?: T;
      error_code?: number;
      description?: string;
      parameters?: { retry_after?: number };
    };
    try {
      body = (await res.json()) as typeof body;
    } catch {
      throw new TelegramApiError(method, res.status, "answered something other than JSON");
    }
    if (!res.ok || body.ok !== true)
      throw new TelegramApiError(
        method,
        body.error_code ?? res.status,
        String(body.description ?? "no description").slice(0, 300),
        body.parameters?.retry_after,
      );
    return body.result as T;
  }

  sendMessage(params: SendMessageParams): Promise<{ message_id: number }> {
    return this.call("sendMessage", params);
  }

  getMe(): Promise<TelegramUser> {
    return this.call("getMe", {}, { timeoutMs: 3_000 });
  }

  getFile(fileId: string): Promise<{ file_id: string; file_size?: number; file_path?: string }> {
    return this.call("getFile", { file_id: fileId });
  }

  /**
   * A file's bytes from `{apiUrl}/file/bot<token>/<path>`, or null when it is larger than
   * `maxBytes` (read no further than that).
   */
  async download(filePath: string, maxBytes: number): Promise<Uint8Array | null> {
    let res: Response;
    try {
      res = await fetch(
        `${this.apiUrl}/file/bot${this.token}/${filePath.split("/").map(encodeURIComponent).join("/")}`,
        {
          signal: AbortSignal.timeout(60_000),
        },
      );
    } catch {
      throw new TelegramApiError("file download", 0, "could not be reached");
    }
    if (!res.ok || !res.body) {
      await res.body?.cancel();
      throw new TelegramApiError("file download", res.status, "the file could not be fetched");
    }
    return readCapped(res, maxBytes);
  }
}
