import { createServer, STATUS_CODES, type IncomingMessage, type ServerResponse } from "node:http";
import { hashedVector } from "./embedding-server.js";
import { setTimeout as sleep } from "node:timers/promises";
import type { RecordedRequest, Turn } from "./model-script.js";
import { anthropicMessages } from "./model-wire-anthropic.js";
import { googleGenerateContent } from "./model-wire-google.js";
import { openaiChat } from "./model-wire-openai.js";
import { openaiResponses } from "./model-wire-openai-responses.js";
import { toReply, type WireProtocol } from "./model-wire.js";

/**
 * A real HTTP server speaking OpenAI Chat Completions, Anthropic Messages and Gemini
 * generateContent, answering from scripts that tests register (see model-script.ts for the
 * client and the Turn types):
 *
 *   POST /scripts {turns}                    -> {id}
 *   GET  /scripts/<id>/requests              -> RecordedRequest[]
 *   POST /scripts?channel=<name>             -> the same, and /c/<name>/v1/… now answers from it
 *   POST /s/<id>/v1/chat/completions         -> the next turn, in OpenAI's protocol
 *   POST /s/<id>/v1/messages                 -> the next turn, in Anthropic's protocol
 *   POST /s/<id>/v1/responses                -> the next turn, in OpenAI's Responses protocol
 *   POST /s/<id>/v1/models/<model>:generateContent
 *   POST /s/<id>/v1/models/<model>:streamGenerateContent?alt=sse
 *                                            -> the next turn, in Gemini's protocol
 *
 * A script per test keeps parallel tests apart; the providers' SDKs talk to it unmodified.
 */
export interface ModelServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

interface Script {
  turns: Turn[];
  used: number;
  requests: RecordedRequest[];
}

const PROTOCOLS: Record<string, WireProtocol> = {
  "/v1/chat/completions": openaiChat,
  "/v1/messages": anthropicMessages,
  "/v1/responses": openaiResponses,
};

/** Gemini names the model and the method in the path. */
const protocolFor = (path: string): WireProtocol | undefined =>
  PROTOCOLS[path] ??
  (/^\/v1\/models\/[^/]+:(generateContent|streamGenerateContent)$/.test(path) ? googleGenerateContent : undefined);

export async function startModelServer(): Promise<ModelServer> {
  const scripts = new Map<string, Script>();
  /** A channel is a fixed base URL whose script the tests replace: for code configured once (a Durable Object's env). */
  const channels = new Map<string, string>();
  let lastScript = 0;

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const path = new URL(req.url ?? "/", "http://local").pathname;
    if (req.method === "POST" && path === "/scripts") {
      const turns = ((await readJson(req)) as { turns?: unknown } | null)?.turns;
      if (!Array.isArray(turns) || !turns.every(isTurn))
        return sendJson(res, 400, { error: `expected {turns: Turn[]}, got ${JSON.stringify(turns)}` });
      const id = String(++lastScript);
      scripts.set(id, { turns: turns as Turn[], used: 0, requests: [] });
      const channel = new URL(req.url ?? "/", "http://local").searchParams.get("channel");
      if (channel) channels.set(channel, id);
      return sendJson(res, 200, { id });
    }
    const listing = /^\/scripts\/([^/]+)\/requests$/.exec(path);
    if (req.method === "GET" && listing) {
      const script = scripts.get(listing[1]!);
      return script ? sendJson(res, 200, script.requests) : sendJson(res, 404, { error: `no script ${listing[1]}` });
    }
    const viaChannel = /^\/c\/([^/]+)(\/v1\/.*)$/.exec(path);
    const call = viaChannel
      ? ([path, channels.get(viaChannel[1]!) ?? `channel-${viaChannel[1]}`, viaChannel[2]!] as const)
      : /^\/s\/([^/]+)(\/v1\/.*)$/.exec(path);
    // Embeddings (OpenAI's wire) are not scripted turns: every script and channel answers them with
    // the embedding server's deterministic vectors, so an embedder on the model's base URL works.
    if (req.method === "POST" && call && call[2] === "/v1/embeddings") {
      const body = (await readJson(req)) as { input?: string | string[]; dimensions?: number; model?: string } | null;
      const input = Array.isArray(body?.input) ? body.input : [String(body?.input ?? "")];
      const dimensions = body?.dimensions ?? 1536;
      return sendJson(res, 200, {
        object: "list",
        data: input.map((text, index) => ({ object: "embedding", index, embedding: hashedVector(text, dimensions) })),
        model: body?.model ?? "embedding",
        usage: { prompt_tokens: input.length, total_tokens: input.length },
      });
    }
    const protocol = call && protocolFor(call[2]!);
    if (req.method === "POST" && call && protocol) {
      const script = scripts.get(call[1]!);
      if (!script) return sendJson(res, 404, protocol.errorBody(404, `no script ${call[1]}`));
      return answer(call[1]!, script, protocol, call[2]!, req, res);
    }
    sendJson(res, 404, { error: `no route for ${req.method} ${path}` });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) res.destroy();
      else sendJson(res, 500, { error: `model server: ${String(error)}` });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Hanging and streaming answers would otherwise hold close() open.
        server.closeAllConnections();
      }),
  };
}

/** Records the request, then answers it with the script's next turn. */
async function answer(
  id: string,
  script: Script,
  protocol: WireProtocol,
  path: string,
  req: IncomingMessage,
  res: ServerResponse,
) {
  const body = (await readJson(req)) as Record<string, unknown>;
  const record: RecordedRequest = { path, headers: headersOf(req), body, disconnected: false };
  script.requests.push(record);
  let cutByUs = false;
  res.on("close", () => {
    if (!res.writableFinished && !cutByUs) record.disconnected = true;
  });

  const turn = script.turns[script.used++];
  if (!turn) {
    const message = `script ${id} exhausted: ${script.turns.length} turn(s) scripted, this is model request ${script.used}`;
    return sendJson(res, 500, protocol.errorBody(500, message));
  }
  if ("error" in turn) {
    const { status, message, code, body: raw, headers } = turn.error;
    const payload = raw ?? protocol.errorBody(status, message ?? STATUS_CODES[status] ?? "error", code);
    // A string body goes out verbatim, to imitate a proxy's HTML or plain-text error page.
    const text = typeof payload === "string" ? payload : JSON.stringify(payload);
    res.writeHead(status, {
      "content-type": typeof payload === "string" ? "text/plain" : "application/json",
      ...headers,
    });
    return void res.end(text);
  }
  // Nothing to do: the socket stays open until the client leaves or stop() closes it.
  if ("hang" in turn) return;

  const reply = toReply(turn, protocol.toolIdPrefix);
  const delayMs = turn.delayMs ?? 0;
  const dropAfter = "dropAfterChunks" in turn ? turn.dropAfterChunks : undefined;
  if (!(protocol.streams ? protocol.streams(path, body) : body.stream === true)) {
    // No timer when no delay is asked for: even setTimeout(0) costs ~1 ms, which would make plain
    // answers slower than streamed ones and skew any comparison between clients.
    if (delayMs > 0) await sleep(delayMs);
    if (res.destroyed) return;
    if (dropAfter !== undefined) {
      cutByUs = true;
      if (dropAfter === 0) return void res.destroy();
      // The answer's head and the start of its body, then the socket is gone: a connection cut after a 200.
      const json = JSON.stringify(protocol.json(reply, body));
      res.writeHead(200, { "content-type": "application/json", "content-length": String(Buffer.byteLength(json)) });
      return void res.write(json.slice(0, Math.floor(json.length / 2)), () => res.destroy());
    }
    return sendJson(res, 200, protocol.json(reply, body));
  }

  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const events = protocol.events(reply, body);
  for (const [i, event] of events.slice(0, dropAfter).entries()) {
    if (i > 0 && delayMs > 0) await sleep(delayMs);
    if (res.destroyed) return; // the client went away (a cancelled run)
    // Waiting for the flush makes sure a drop comes after the events, not instead of them.
    await new Promise((resolve) => res.write(event, resolve));
  }
  if (dropAfter !== undefined) {
    cutByUs = true;
    res.destroy();
  } else {
    res.end();
  }
}

const TURN_KEYS = ["text", "toolCalls", "error", "hang", "dropAfterChunks"];
/** A turn must say what it does, so a misspelt key fails at registration rather than as an empty answer. */
function isTurn(turn: unknown): boolean {
  return typeof turn === "object" && turn !== null && TURN_KEYS.some((key) => key in turn);
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8") || "null");
}

function headersOf(req: IncomingMessage): Record<string, string> {
  return Object.fromEntries(
    Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : (v ?? "")]),
  );
}

function sendJson(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}
