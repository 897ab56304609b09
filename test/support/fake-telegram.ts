import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { RECORDED_CALLS_PATH } from "./recorded-calls.js";

/** One Bot API call the fake received: the method and its parameters. */
export interface TelegramCall {
  method: string;
  params: Record<string, unknown>;
}

/** A file the fake serves through getFile and `/file/bot<token>/<path>`. */
export interface FakeFile {
  bytes: Uint8Array;
  /** what getFile reports (default: the real size); Telegram omits it sometimes */
  reportedSize?: number | null;
}

export interface FakeTelegramOptions {
  token: string;
  username?: string;
}

/**
 * A Telegram Bot API on 127.0.0.1 speaking its wire format (https://core.telegram.org/bots/api):
 * `POST /bot<token>/<method>` with JSON or form parameters, answering `{ok: true, result}` or
 * `{ok: false, error_code, description[, parameters.retry_after]}`; files at
 * `GET /file/bot<token>/<file_path>`. It checks what the real API checks for the calls the
 * interface makes: the token, a message's text length after its HTML is parsed (4096), that the
 * HTML parses, and known file ids. Every call is recorded; `fail` makes calls fail as Telegram
 * does when it is down (5xx) or throttling (429 with retry_after).
 */
export class FakeTelegram {
  readonly calls: TelegramCall[] = [];
  readonly files = new Map<string, FakeFile>();
  readonly downloads: string[] = [];
  url = "";
  private failures: Array<{ method: string; status: number; retryAfter?: number }> = [];
  private nextMessageId = 1000;
  private server = createServer((req, res) => void this.serve(req, res));

  constructor(private readonly opts: FakeTelegramOptions) {}

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The next `count` calls of `method` ("*": any) fail with `status` (429: with retry_after). */
  fail(method: string, count: number, status: number, retryAfter?: number): void {
    for (let i = 0; i < count; i++) this.failures.push({ method, status, retryAfter });
  }

  /** The recorded calls of one method. */
  of(method: string): Array<Record<string, unknown>> {
    return this.calls.filter((c) => c.method === method).map((c) => c.params);
  }

  /** The texts of every message sent, in order. */
  texts(): string[] {
    return this.of("sendMessage").map((p) => String(p.text));
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://x");
    const filePrefix = `/file/bot${this.opts.token}/`;
    if (req.method === "GET" && url.pathname === RECORDED_CALLS_PATH) return this.answer(res, 200, this.calls);
    if (req.method === "GET" && url.pathname.startsWith("/file/bot")) {
      const path = decodeURIComponent(url.pathname.slice(filePrefix.length));
      const file = url.pathname.startsWith(filePrefix)
        ? [...this.files.entries()].find(([id]) => pathOf(id) === path)
        : undefined;
      if (!file) return void res.writeHead(404).end("Not Found");
      this.downloads.push(path);
      res.writeHead(200, { "content-type": "application/octet-stream", "content-length": file[1].bytes.byteLength });
      return void res.end(file[1].bytes);
    }
    const m = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
    if (!m) return this.answer(res, 404, { ok: false, error_code: 404, description: "Not Found" });
    if (m[1] !== this.opts.token)
      return this.answer(res, 401, { ok: false, error_code: 401, description: "Unauthorized" });
    const method = m[2]!;
    const params = await readParams(req);
    this.calls.push({ method, params });
    const failure = this.failures.findIndex((f) => f.method === "*" || f.method === method);
    if (failure >= 0) {
      const [f] = this.failures.splice(failure, 1);
      if (f!.status === 429)
        return this.answer(
          res,
          429,
          {
            ok: false,
            error_code: 429,
            description: `Too Many Requests: retry after ${f!.retryAfter ?? 1}`,
            parameters: { retry_after: f!.retryAfter ?? 1 },
          },
          { "retry-after": String(f!.retryAfter ?? 1) },
        );
      return this.answer(res, f!.status, { ok: false, error_code: f!.status, description: "Internal Server Error" });
    }
    const bad = (description: string) =>
      this.answer(res, 400, { ok: false, error_code: 400, description: `Bad Request: ${description}` });
    switch (method) {
      case "getMe":
        return this.ok(res, {
          id: Number(this.opts.token.split(":")[0]),
          is_bot: true,
          first_name: "Bot",
          username: this.opts.username ?? "agno_bot",
        });
      case "sendMessage": {
        if (params.chat_id === undefined) return bad("chat_id is empty");
        const text = typeof params.text === "string" ? params.text : "";
        let visible = text;
        if (params.parse_mode === "HTML") {
          const parsed = parseTelegramHtml(text);
          if (typeof parsed !== "string") return bad(`can't parse entities: ${parsed.error}`);
          visible = parsed;
        }
        if (visible.trim() === "") return bad("message text is empty");
        if (visible.length > 4096) return bad("message is too long");
        return this.ok(res, {
          message_id: this.nextMessageId++,
          date: Math.floor(Date.now() / 1000),
          chat: { id: params.chat_id, type: "private" },
          text: visible,
        });
      }
      case "sendChatAction":
        return params.action ? this.ok(res, true) : bad("action is empty");
      case "answerCallbackQuery":
        return params.callback_query_id
          ? this.ok(res, true)
          : bad("query is too old and response timeout expired or query ID is invalid");
      case "editMessageReplyMarkup":
        return params.message_id ? this.ok(res, true) : bad("message identifier is not specified");
      case "getFile": {
        const file = this.files.get(String(params.file_id));
        if (!file) return bad("invalid file_id");
        const size = file.reportedSize === undefined ? file.bytes.byteLength : file.reportedSize;
        return this.ok(res, {
          file_id: params.file_id,
          file_unique_id: `u${String(params.file_id)}`,
          ...(size === null ? {} : { file_size: size }),
          file_path: pathOf(String(params.file_id)),
        });
      }
      case "setWebhook": {
        const target = String(params.url ?? "");
        if (!/^https:\/\/|^http:\/\/(127\.0\.0\.1|localhost)/.test(target))
          return bad("bad webhook: An HTTPS URL must be provided for webhook");
        if (params.secret_token !== undefined && !/^[A-Za-z0-9_-]{1,256}$/.test(String(params.secret_token)))
          return bad("secret token contains unallowed characters");
        return this.ok(res, true);
      }
      default:
        return this.answer(res, 404, { ok: false, error_code: 404, description: "Not Found: method not found" });
    }
  }

  private ok(res: ServerResponse, result: unknown): void {
    this.answer(res, 200, { ok: true, result });
  }

  private answer(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  }
}

function pathOf(fileId: string): string {
  return `documents/${fileId}.bin`;
}

async function readParams(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks).toString("utf8");
  if (!raw) return {};
  if ((req.headers["content-type"] ?? "").includes("application/json"))
    return JSON.parse(raw) as Record<string, unknown>;
  return Object.fromEntries(new URLSearchParams(raw));
}

const TAGS = new Set([
  "b",
  "strong",
  "i",
  "em",
  "u",
  "ins",
  "s",
  "strike",
  "del",
  "span",
  "tg-spoiler",
  "a",
  "code",
  "pre",
  "blockquote",
  "tg-emoji",
]);
const ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"' };

/**
 * Telegram's HTML parse mode, as its docs describe it: the text with tags removed and the four
 * named entities (and numeric ones) decoded, or why it does not parse. Written apart from the
 * interface's own checker so the two can disagree.
 */
export function parseTelegramHtml(html: string): string | { error: string } {
  let out = "";
  const open: string[] = [];
  let i = 0;
  while (i < html.length) {
    const ch = html[i]!;
    if (ch === "<") {
      const end = html.indexOf(">", i);
      if (end < 0) return { error: `Unclosed start tag at byte offset ${i}` };
      const inner = html.slice(i + 1, end);
      const closing = inner.startsWith("/");
      const name = (closing ? inner.slice(1) : inner).split(/\s/, 1)[0]!.toLowerCase();
      if (!TAGS.has(name)) return { error: `Unsupported start tag "${name}" at byte offset ${i}` };
      if (closing) {
        if (open.pop() !== name)
          return {
            error: `Unmatched end tag at byte offset ${i}, expected "</${open.at(-1) ?? ""}>", found "</${name}>"`,
          };
      } else {
        const attrs = inner.slice(name.length).trim();
        if (name === "a" && !/^href="[^"]*"$/.test(attrs)) return { error: `Bad a tag at byte offset ${i}` };
        if (attrs && name !== "a" && name !== "code" && name !== "span" && name !== "blockquote" && name !== "tg-emoji")
          return { error: `Unexpected attribute in tag "${name}" at byte offset ${i}` };
        open.push(name);
      }
      i = end + 1;
    } else if (ch === "&") {
      const m = /^&(#x[0-9a-f]+|#\d+|[a-z]+);/i.exec(html.slice(i, i + 12));
      if (!m) return { error: `Character entity expected at byte offset ${i}` };
      const ref = m[1]!;
      if (ref.startsWith("#"))
        out += String.fromCodePoint(
          ref[1] === "x" || ref[1] === "X" ? parseInt(ref.slice(2), 16) : Number(ref.slice(1)),
        );
      else if (ENTITIES[ref] !== undefined) out += ENTITIES[ref];
      else return { error: `Unsupported HTML entity "&${ref};" at byte offset ${i}` };
      i += m[0].length;
    } else if (ch === ">") {
      return { error: `Unexpected end tag at byte offset ${i}` };
    } else {
      out += ch;
      i++;
    }
  }
  if (open.length) return { error: `Can't find end tag corresponding to start tag "${open.at(-1)}"` };
  return out;
}
