import { readCapped } from "../../read-capped.js";
import { SlackApiError } from "./slack-errors.js";

/** A Block Kit block, as JSON (Slack validates it). */
export type SlackBlock = Record<string, unknown>;

/** Where a message goes: a channel (or DM) and, for a reply, the thread's first message ts. */
export interface SlackPlace {
  channel: string;
  threadTs?: string;
}

/**
 * The few Slack Web API methods the interface calls, over plain `fetch` (Slack's SDK does not run
 * in workerd). Each call is one HTTP request: a 429 or a 5xx throws SlackApiError (a 429 with its
 * Retry-After) and the caller decides whether to wait or let the job retry.
 */
export class SlackApi {
  private readonly base: string;

  constructor(
    private readonly token: string,
    apiUrl = "https://slack.com/api",
  ) {
    this.base = apiUrl.replace(/\/+$/, "");
  }

  /** Posts a message; answers its ts (the id chat.update needs). */
  async postMessage(place: SlackPlace, text: string, blocks?: SlackBlock[]): Promise<string> {
    const res = await this.call("chat.postMessage", {
      channel: place.channel,
      ...(place.threadTs ? { thread_ts: place.threadTs } : {}),
      text,
      ...(blocks ? { blocks } : {}),
      // Links the model writes are not unfurled into previews the user did not ask for.
      unfurl_links: false,
      unfurl_media: false,
    });
    if (typeof res.ts !== "string") throw new SlackApiError("chat.postMessage", "no_ts_in_answer", 200);
    return res.ts;
  }

  /** Replaces a message's text (and its blocks: `[]` removes them, e.g. the buttons once pressed). */
  async update(channel: string, ts: string, text: string, blocks?: SlackBlock[]): Promise<void> {
    await this.call("chat.update", { channel, ts, text, ...(blocks ? { blocks } : {}) });
  }

  /** A message only `user` sees, in the channel (and thread) given. */
  async postEphemeral(place: SlackPlace, user: string, text: string): Promise<void> {
    await this.call("chat.postEphemeral", {
      channel: place.channel,
      user,
      text,
      ...(place.threadTs ? { thread_ts: place.threadTs } : {}),
    });
  }

  /** An assistant thread's title in Slack's assistant pane. */
  async setAssistantTitle(channel: string, threadTs: string, title: string): Promise<void> {
    await this.call("assistant.threads.setTitle", { channel_id: channel, thread_ts: threadTs, title });
  }

  /** The "is thinking…" status of an assistant thread. */
  async setAssistantStatus(channel: string, threadTs: string, status: string): Promise<void> {
    await this.call("assistant.threads.setStatus", { channel_id: channel, thread_ts: threadTs, status });
  }

  /**
   * The bytes of a file a user shared (its url_private_download, which needs the bot token), or
   * null when it is larger than `maxBytes`, which is then never read past the cap.
   */
  async download(url: string, maxBytes: number): Promise<Uint8Array | null> {
    const res = await fetch(url, { headers: { authorization: `Bearer ${this.token}` } });
    if (!res.ok) {
      await res.body?.cancel();
      throw new SlackApiError("files download", `http_${res.status}`, res.status, retryAfter(res));
    }
    return readCapped(res, maxBytes);
  }

  private async call(method: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const res = await fetch(`${this.base}/${method}`, {
      method: "POST",
      headers: { authorization: `Bearer ${this.token}`, "content-type": "application/json; charset=utf-8" },
      body: JSON.stringify(body),
    });
    if (!res.ok) {
      await res.body?.cancel();
      const code = res.status === 429 ? "ratelimited" : `http_${res.status}`;
      throw new SlackApiError(method, code, res.status, retryAfter(res));
    }
    let answer: unknown;
    try {
      answer = await res.json();
    } catch {
      throw new SlackApiError(method, "invalid_json_answer", res.status);
    }
    const obj = (answer ?? {}) as Record<string, unknown>;
    if (obj.ok !== true)
      throw new SlackApiError(method, typeof obj.error === "string" ? obj.error : "not_ok", res.status);
    return obj;
  }
}

/** A 429's Retry-After in seconds (Slack sends whole seconds), when there is a usable one. */
function retryAfter(res: Response): number | undefined {
  const v = Number(res.headers.get("retry-after") ?? "NaN");
  return Number.isFinite(v) && v >= 0 ? v : res.status === 429 ? 1 : undefined;
}
