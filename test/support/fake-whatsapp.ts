import { createHmac } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { RECORDED_CALLS_PATH } from "./recorded-calls.js";

/** One call the fake Cloud API received. */
export interface CloudApiCall {
  method: string;
  path: string;
  authorization: string | undefined;
  body: Record<string, unknown> | undefined;
  /** the status the fake answered */
  status?: number;
}

/** A file the fake serves as an uploaded WhatsApp media object. */
export interface FakeMedia {
  bytes: Uint8Array;
  mimeType: string;
}

/**
 * A WhatsApp Cloud API on 127.0.0.1 speaking the Graph API's formats: `POST /{version}/{phone-number-id}/messages`
 * (text, interactive and read-receipt bodies checked as Meta checks them, answered with
 * `{messaging_product, contacts, messages: [{id}]}`), `GET /{version}/{media-id}` (the media's
 * URL, type and size) and that URL's bytes. Every call is recorded. Knobs: `failNext(n, status,
 * retryAfter)` answers the next n message sends with a Graph error, as a platform that is down or
 * throttling would.
 */
export class FakeWhatsApp {
  readonly calls: CloudApiCall[] = [];
  readonly media = new Map<string, FakeMedia>();
  private failures: Array<{ status: number; retryAfter?: number }> = [];
  private server?: Server;
  private sent = 0;
  port = 0;

  constructor(
    readonly accessToken: string,
    readonly phoneNumberId: string,
  ) {}

  /** The base a client is given: host and API version, as https://graph.facebook.com/v25.0. */
  get apiUrl(): string {
    return `http://127.0.0.1:${this.port}/v25.0`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  /** The next `n` message sends (texts and interactive messages; not read receipts) fail with `status` (429 with Retry-After when given). */
  failNext(n: number, status: number, retryAfter?: number): void {
    for (let i = 0; i < n; i++) this.failures.push({ status, retryAfter });
  }

  /** What was sent to users: the bodies of successful message sends other than read receipts. */
  get messages(): Array<Record<string, unknown>> {
    return this.calls
      .filter((c) => c.status === 200 && c.path.endsWith("/messages") && c.body && !("status" in c.body))
      .map((c) => c.body!);
  }

  /** The texts sent, in order. */
  get texts(): string[] {
    return this.messages.filter((m) => m.type === "text").map((m) => (m.text as { body: string }).body);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    const url = new URL(req.url ?? "/", `http://127.0.0.1:${this.port}`);
    if (req.method === "GET" && url.pathname === RECORDED_CALLS_PATH) {
      res.writeHead(200, { "content-type": "application/json" });
      return void res.end(JSON.stringify(this.calls));
    }
    let body: Record<string, unknown> | undefined;
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : undefined;
    } catch {
      return this.graphError(res, 400, 100, "Invalid JSON");
    }
    const call: CloudApiCall = {
      method: req.method ?? "",
      path: url.pathname,
      authorization: req.headers.authorization,
      body,
    };
    if (req.headers.authorization !== `Bearer ${this.accessToken}`) {
      this.calls.push(call);
      return this.graphError(res, 401, 190, "Invalid OAuth access token.");
    }
    const download = /^\/download\/(.+)$/.exec(url.pathname);
    if (download && req.method === "GET") {
      this.calls.push(call);
      const m = this.media.get(decodeURIComponent(download[1]!));
      if (!m) return this.graphError(res, 404, 100, "Unknown media");
      call.status = 200;
      res.writeHead(200, { "content-type": m.mimeType, "content-length": m.bytes.byteLength });
      return void res.end(Buffer.from(m.bytes));
    }
    const path = /^\/v[0-9]+\.[0-9]+\/([^/]+)(\/messages)?$/.exec(url.pathname);
    if (!path) return this.graphError(res, 404, 100, "Unknown path");
    if (req.method === "GET" && !path[2]) {
      this.calls.push(call);
      const id = decodeURIComponent(path[1]!);
      const m = this.media.get(id);
      if (!m) return this.graphError(res, 404, 100, "Unsupported get request.");
      return this.json(res, 200, {
        messaging_product: "whatsapp",
        url: `http://127.0.0.1:${this.port}/download/${encodeURIComponent(id)}`,
        mime_type: m.mimeType,
        sha256: "0".repeat(64),
        file_size: m.bytes.byteLength,
        id,
      });
    }
    if (req.method !== "POST" || !path[2] || path[1] !== this.phoneNumberId)
      return this.graphError(res, 400, 100, "Unsupported post request.");
    this.calls.push(call);
    const failure = body?.status === "read" ? undefined : this.failures.shift();
    if (failure) {
      if (failure.retryAfter !== undefined) res.setHeader("retry-after", String(failure.retryAfter));
      return this.graphError(
        res,
        failure.status,
        failure.status === 429 ? 130429 : 2,
        "Service temporarily unavailable",
      );
    }
    const problem = sendProblem(body);
    if (problem) {
      return this.graphError(res, 400, 100, problem);
    }
    if (body!.status === "read") return this.json(res, 200, { success: true });
    this.sent++;
    return this.json(res, 200, {
      messaging_product: "whatsapp",
      contacts: [{ input: body!.to, wa_id: body!.to }],
      messages: [{ id: `wamid.SENT${this.sent}` }],
    });
  }

  private json(res: ServerResponse, status: number, body: unknown): void {
    const call = this.calls.at(-1);
    if (call && call.status === undefined) call.status = status;
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  }

  private graphError(res: ServerResponse, status: number, code: number, message: string): void {
    this.json(res, status, { error: { message, type: "OAuthException", code, fbtrace_id: "AbCdEf" } });
  }
}

/** What the Cloud API refuses in a message send, as its documentation states the limits. */
function sendProblem(body: Record<string, unknown> | undefined): string | undefined {
  if (!body || body.messaging_product !== "whatsapp") return "(#100) messaging_product must be whatsapp";
  if (body.status === "read") return typeof body.message_id === "string" ? undefined : "(#100) message_id is required";
  if (typeof body.to !== "string" || !/^[0-9]+$/.test(body.to)) return "(#100) Invalid parameter: to";
  if (body.type === "text") {
    const text = body.text as { body?: unknown } | undefined;
    if (typeof text?.body !== "string" || text.body.length === 0) return "(#100) text.body is required";
    if ([...text.body].length > 4096) return "(#100) Param text['body'] must be at most 4096 characters long.";
    return undefined;
  }
  if (body.type === "interactive") {
    const i = body.interactive as {
      type?: unknown;
      body?: { text?: unknown };
      action?: { buttons?: Array<{ type?: unknown; reply?: { id?: unknown; title?: unknown } }> };
    };
    if (i?.type !== "button") return "(#100) interactive.type must be button";
    if (typeof i.body?.text !== "string" || i.body.text.length > 1024) return "(#100) body.text: 1 to 1024 characters";
    const buttons = i.action?.buttons ?? [];
    if (buttons.length < 1 || buttons.length > 3) return "(#100) buttons: 1 to 3";
    for (const b of buttons) {
      if (b.type !== "reply") return "(#100) button type must be reply";
      if (typeof b.reply?.id !== "string" || b.reply.id.length > 256) return "(#100) reply.id: at most 256 characters";
      if (typeof b.reply.title !== "string" || b.reply.title.length > 20)
        return "(#100) reply.title: at most 20 characters";
    }
    return undefined;
  }
  return `(#100) unsupported type ${String(body.type)}`;
}

/** Meta's X-Hub-Signature-256 of a body under an app secret. */
export function metaSignature(body: string | Buffer, appSecret: string): string {
  return `sha256=${createHmac("sha256", appSecret).update(body).digest("hex")}`;
}

/** A webhook delivery of `messages` to `phoneNumberId`, as the Cloud API posts it. */
export function delivery(phoneNumberId: string, messages: unknown[], extra: Record<string, unknown> = {}) {
  return {
    object: "whatsapp_business_account",
    entry: [
      {
        id: "102290129340398",
        changes: [
          {
            field: "messages",
            value: {
              messaging_product: "whatsapp",
              metadata: { display_phone_number: "15550783881", phone_number_id: phoneNumberId },
              contacts: [{ profile: { name: "Ann" }, wa_id: "15551234567" }],
              messages,
              ...extra,
            },
          },
        ],
      },
    ],
  };
}

/** A user's text message, as the Cloud API delivers it. */
export function textMessage(from: string, id: string, body: string, timestamp = Math.floor(Date.now() / 1000)) {
  return { from, id, timestamp: String(timestamp), type: "text", text: { body } };
}
