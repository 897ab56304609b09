/**
 * The few Cloud API calls the interface makes (plain `fetch`, so it runs in workerd and Node):
 * send a text or an interactive message, mark a message read, and fetch a media file the user
 * sent. Every call carries the access token as a bearer; no message or error here ever includes it.
 */

import { readCapped } from "../../read-capped.js";

/** A Cloud API call that did not succeed; `status` 429 or 5xx is worth retrying, after `retryAfterSeconds` when given. */
export class WhatsAppApiError extends Error {
  override readonly name = "WhatsAppApiError";
  constructor(
    message: string,
    readonly status: number,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** A file the user sent, as the media endpoint describes it. */
export interface MediaFile {
  bytes: Uint8Array;
  mimeType: string;
}

/** A reply button: `id` comes back in the `button_reply` of the user's press. */
export interface ReplyButton {
  id: string;
  title: string;
}

export interface WhatsAppApiOptions {
  apiUrl: string;
  accessToken: string;
  phoneNumberId: string;
  /** how long one call may take */
  timeoutMs: number;
}

export class WhatsAppApi {
  private readonly base: string;

  constructor(private readonly opts: WhatsAppApiOptions) {
    this.base = opts.apiUrl.replace(/\/+$/, "");
  }

  /** Sends `body` as a text message to `to` (a WhatsApp id); returns the sent message's id. */
  async sendText(to: string, body: string): Promise<string | undefined> {
    return this.send({ recipient_type: "individual", to, type: "text", text: { preview_url: false, body } });
  }

  /** Sends an interactive message with up to three reply buttons. */
  async sendButtons(to: string, body: string, buttons: ReplyButton[]): Promise<string | undefined> {
    return this.send({
      recipient_type: "individual",
      to,
      type: "interactive",
      interactive: {
        type: "button",
        body: { text: body },
        action: { buttons: buttons.map((b) => ({ type: "reply", reply: { id: b.id, title: b.title } })) },
      },
    });
  }

  /** Marks the user's message read (blue ticks) and shows "typing…" until the answer comes. */
  async markRead(messageId: string): Promise<void> {
    await this.call("POST", `${this.base}/${encodeURIComponent(this.opts.phoneNumberId)}/messages`, {
      messaging_product: "whatsapp",
      status: "read",
      message_id: messageId,
      typing_indicator: { type: "text" },
    });
  }

  /**
   * A file the user sent: its URL from `GET /{media-id}`, then its bytes from that URL (which
   * also needs the token), refused beyond `maxBytes` without reading further.
   */
  async downloadMedia(mediaId: string, maxBytes: number): Promise<MediaFile | { tooLarge: number }> {
    const info = (await (await this.call("GET", `${this.base}/${encodeURIComponent(mediaId)}`)).json()) as {
      url?: unknown;
      mime_type?: unknown;
      file_size?: unknown;
    };
    if (typeof info.url !== "string" || !/^https?:\/\//.test(info.url))
      throw new WhatsAppApiError(`media ${mediaId}: the Cloud API gave no download URL`, 502);
    if (typeof info.file_size === "number" && info.file_size > maxBytes) return { tooLarge: info.file_size };
    const res = await this.call("GET", info.url);
    const declared = Number(res.headers.get("content-length") ?? NaN);
    if (declared > maxBytes) {
      await res.body?.cancel();
      return { tooLarge: declared };
    }
    const bytes = await readCapped(res, maxBytes);
    if (!bytes) return { tooLarge: maxBytes + 1 };
    const mimeType = typeof info.mime_type === "string" ? info.mime_type : (res.headers.get("content-type") ?? "");
    return { bytes, mimeType };
  }

  private async send(message: Record<string, unknown>): Promise<string | undefined> {
    const res = await this.call("POST", `${this.base}/${encodeURIComponent(this.opts.phoneNumberId)}/messages`, {
      messaging_product: "whatsapp",
      ...message,
    });
    const body = (await res.json().catch(() => ({}))) as { messages?: Array<{ id?: unknown }> };
    const sent = body.messages?.[0]?.id;
    return typeof sent === "string" ? sent : undefined;
  }

  private async call(method: "GET" | "POST", url: string, json?: unknown): Promise<Response> {
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers: {
          authorization: `Bearer ${this.opts.accessToken}`,
          ...(json === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(json === undefined ? {} : { body: JSON.stringify(json) }),
        signal: AbortSignal.timeout(this.opts.timeoutMs),
      });
    } catch (error) {
      // A network failure or a timeout: as retryable as a 503.
      throw new WhatsAppApiError(`the Cloud API could not be reached: ${(error as Error).name}`, 503);
    }
    if (res.ok) return res;
    const text = await res.text().catch(() => "");
    let detail = "";
    try {
      const err = (JSON.parse(text) as { error?: { message?: unknown; code?: unknown } }).error;
      if (err) detail = `: ${String(err.message ?? "").slice(0, 300)} (code ${String(err.code)})`;
    } catch {
      // Not Graph's error body: the status says enough.
    }
    const after = Number(res.headers.get("retry-after") ?? NaN);
    throw new WhatsAppApiError(
      `the Cloud API answered ${res.status}${detail}`,
      res.status,
      Number.isFinite(after) && after >= 0 ? after : undefined,
    );
  }
}
