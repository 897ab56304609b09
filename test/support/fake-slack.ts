import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { RECORDED_CALLS_PATH } from "./recorded-calls.js";

/** One Web API call the fake received: the method, its JSON arguments, and whether the bot token was right. */
export interface SlackCall {
  method: string;
  args: Record<string, unknown>;
  authorized: boolean;
  at: number;
  /** the HTTP status the fake answered (429 or 5xx when a fault was injected) */
  status: number;
}

/** A message the fake holds, as chat.postMessage made it and chat.update changed it. */
export interface FakeSlackMessage {
  channel: string;
  ts: string;
  thread_ts?: string;
  text: string;
  blocks?: unknown[];
  updates: number;
}

/** A failure the fake answers with instead of the next matching calls. */
export interface SlackFault {
  status: 429 | 500 | 502 | 503;
  /** Retry-After, in seconds (a 429's) */
  retryAfter?: number;
  /** only calls of these methods fail (default: every Web API method) */
  methods?: string[];
  /** how many calls fail */
  times: number;
}

/**
 * A Slack Web API on 127.0.0.1 (a real HTTP server): `POST /api/<method>` as Slack answers it
 * (`{ok: true, …}` or `{ok: false, error}` with HTTP 200; 429 with Retry-After for rate limits),
 * for chat.postMessage, chat.update, chat.postEphemeral and assistant.threads.setStatus, and
 * files at `/files/<id>` readable with the bot token, as url_private_download is. It records
 * every call; `fail` makes the next calls answer 5xx or 429.
 */
export class FakeSlack {
  readonly calls: SlackCall[] = [];
  readonly messages = new Map<string, FakeSlackMessage>();
  readonly downloads: Array<{ path: string; authorized: boolean }> = [];
  private readonly files = new Map<string, { bytes: Uint8Array; mimetype: string }>();
  private faults: SlackFault[] = [];
  private seq = 0;
  private server?: Server;
  url = "";

  constructor(private readonly token: string) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.serve(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  get apiUrl(): string {
    return `${this.url}/api`;
  }

  fail(fault: SlackFault): void {
    this.faults.push({ ...fault });
  }

  /** Holds a file; answers the url_private_download an event would carry for it. */
  addFile(id: string, bytes: Uint8Array, mimetype: string): string {
    this.files.set(id, { bytes, mimetype });
    return `${this.url}/files/${id}`;
  }

  /** The calls of one method, in order. */
  callsOf(method: string): SlackCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  /** The messages in a thread (its first message's ts), in the order they were posted. */
  thread(channel: string, threadTs: string): FakeSlackMessage[] {
    return [...this.messages.values()].filter((m) => m.channel === channel && m.thread_ts === threadTs);
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    const authorized = req.headers.authorization === `Bearer ${this.token}`;
    const path = (req.url ?? "/").split("?")[0]!;
    if (req.method === "GET" && path === RECORDED_CALLS_PATH) return this.answer(res, this.calls);
    if (req.method === "GET" && path.startsWith("/files/")) {
      this.downloads.push({ path, authorized });
      const file = this.files.get(decodeURIComponent(path.slice("/files/".length)));
      if (!authorized || !file) return void res.writeHead(authorized ? 404 : 403).end();
      res.writeHead(200, { "content-type": file.mimetype, "content-length": String(file.bytes.length) });
      return void res.end(Buffer.from(file.bytes));
    }
    if (req.method !== "POST" || !path.startsWith("/api/")) return void res.writeHead(404).end();
    const method = path.slice("/api/".length);
    let args: Record<string, unknown> = {};
    try {
      args = req.headers["content-type"]?.startsWith("application/json")
        ? (JSON.parse(raw) as Record<string, unknown>)
        : Object.fromEntries(new URLSearchParams(raw));
    } catch {
      return this.answer(res, { ok: false, error: "invalid_json" });
    }
    const call: SlackCall = { method, args, authorized, at: Date.now(), status: 200 };
    this.calls.push(call);
    const fault = this.faults.find((f) => f.times > 0 && (!f.methods || f.methods.includes(method)));
    if (fault) {
      fault.times--;
      call.status = fault.status;
      res.writeHead(fault.status, {
        "content-type": "application/json",
        ...(fault.retryAfter !== undefined ? { "retry-after": String(fault.retryAfter) } : {}),
      });
      return void res.end(JSON.stringify({ ok: false, error: fault.status === 429 ? "ratelimited" : "fatal_error" }));
    }
    if (!authorized)
      return this.answer(res, { ok: false, error: req.headers.authorization ? "invalid_auth" : "not_authed" });
    this.answer(res, this.call(method, args));
  }

  private call(method: string, a: Record<string, unknown>): Record<string, unknown> {
    const channel = typeof a.channel === "string" ? a.channel : "";
    const text = typeof a.text === "string" ? a.text : "";
    switch (method) {
      case "chat.postMessage": {
        if (!channel) return { ok: false, error: "channel_not_found" };
        if (!text && !a.blocks) return { ok: false, error: "no_text" };
        if (text.length > 40_000) return { ok: false, error: "msg_too_long" };
        const ts = `1700000000.${String(++this.seq).padStart(6, "0")}`;
        const thread_ts = typeof a.thread_ts === "string" ? a.thread_ts : undefined;
        const m: FakeSlackMessage = { channel, ts, text, updates: 0, ...(thread_ts ? { thread_ts } : {}) };
        if (Array.isArray(a.blocks)) m.blocks = a.blocks;
        this.messages.set(ts, m);
        return { ok: true, channel, ts, message: { type: "message", text, ts, ...(thread_ts ? { thread_ts } : {}) } };
      }
      case "chat.update": {
        const m = this.messages.get(String(a.ts));
        if (!m || m.channel !== channel) return { ok: false, error: "message_not_found" };
        if (text.length > 40_000) return { ok: false, error: "msg_too_long" };
        m.text = text;
        if (Array.isArray(a.blocks)) m.blocks = a.blocks;
        m.updates++;
        return { ok: true, channel, ts: m.ts, text };
      }
      case "chat.postEphemeral":
        if (!channel || typeof a.user !== "string") return { ok: false, error: "channel_not_found" };
        return { ok: true, message_ts: `1700000000.${String(++this.seq).padStart(6, "0")}` };
      case "assistant.threads.setTitle":
        return typeof a.channel_id === "string" && typeof a.thread_ts === "string" && typeof a.title === "string"
          ? { ok: true }
          : { ok: false, error: "invalid_arguments" };
      case "assistant.threads.setStatus":
        return typeof a.channel_id === "string" && typeof a.thread_ts === "string"
          ? { ok: true }
          : { ok: false, error: "invalid_arguments" };
      default:
        return { ok: false, error: "unknown_method" };
    }
  }

  private answer(res: ServerResponse, body: unknown): void {
    res.writeHead(200, { "content-type": "application/json; charset=utf-8" });
    res.end(JSON.stringify(body));
  }
}
