/**
 * The client side of the scripted model server (test/support/model-server.ts): what a test says
 * the model will answer, turn by turn. Only `fetch` is used, so node tests and Workers tests
 * (which reach the server over HTTP alone) share it.
 *
 * One Turn answers one model request, on either wire protocol: the same script can drive an
 * OpenAI Chat Completions client or an Anthropic Messages client.
 */

/**
 * Token counts in provider-neutral terms, mapped so both providers report the same numbers:
 * `inputTokens` includes `cachedTokens` (Anthropic's `input_tokens` is sent without them, as its
 * API does) and `outputTokens` includes `reasoningTokens`. Defaults: 10 in, 5 out, 0, 0.
 */
export interface Usage {
  inputTokens?: number;
  outputTokens?: number;
  reasoningTokens?: number;
  cachedTokens?: number;
}

/** How a streamed answer is cut: `chunkSize` characters per text or argument fragment (default 4), `delayMs` between SSE events. */
export interface Pacing {
  chunkSize?: number;
  /** also the wait before a non-streamed answer; keep it small, it exists so tests can cancel mid-run */
  delayMs?: number;
}

/** A plain answer. `truncated` ends it as if the output limit was hit (`length` / `max_tokens`). */
export interface TextTurn extends Pacing {
  text: string;
  /** sent as Anthropic thinking or as Chat Completions `reasoning_content` (openai-compatible providers read it; OpenAI's own ignores it) */
  reasoning?: string;
  usage?: Usage;
  truncated?: boolean;
}

export interface ScriptedToolCall {
  /** defaults to a fresh `call_<n>` / `toolu_<n>` */
  id?: string;
  name: string;
  /** an object is sent as its JSON; a string is sent verbatim, to test malformed arguments */
  arguments: Record<string, unknown> | string;
}

/** One or several parallel tool calls, optionally after some text. */
export interface ToolCallsTurn extends Pacing {
  toolCalls: ScriptedToolCall[];
  text?: string;
  reasoning?: string;
  usage?: Usage;
}

/**
 * An HTTP error. Without `body`, the body is the protocol's own error shape carrying `message`
 * (default: the status text); `code` is OpenAI's `error.code` (e.g. `context_length_exceeded`).
 */
export interface ErrorTurn {
  error: { status: number; message?: string; code?: string; body?: unknown; headers?: Record<string, string> };
}

/** Accepts the request and never answers, until the client goes away. */
export interface HangTurn {
  hang: true;
}

/**
 * Streams `dropAfterChunks` SSE events of `text`, then destroys the socket: a network failure mid-stream.
 * Not streamed: 0 drops the connection before answering, more sends the 200's head and half its body first.
 */
export interface DropTurn extends Pacing {
  dropAfterChunks: number;
  text: string;
}

export type Turn = TextTurn | ToolCallsTurn | ErrorTurn | HangTurn | DropTurn;

/** What the server received for one model request. */
export interface RecordedRequest {
  /** e.g. `/v1/chat/completions` or `/v1/messages` */
  path: string;
  /** every request header, names lowercased (authorization, x-api-key, anthropic-version...) */
  headers: Record<string, string>;
  body: Record<string, unknown>;
  /** true once the client closed the connection before the answer was complete (a cancelled call) */
  disconnected: boolean;
}

export interface ModelScript {
  id: string;
  /** give this to the provider as its `baseURL` */
  baseURL: string;
  requests(): Promise<RecordedRequest[]>;
}

/** Registers a script on the server at `serverUrl`; each model request to its `baseURL` consumes the next turn. */
export async function scriptModel(
  serverUrl: string,
  turns: Turn[],
  opts: { channel?: string } = {},
): Promise<ModelScript> {
  const res = await fetch(`${serverUrl}/scripts${opts.channel ? `?channel=${encodeURIComponent(opts.channel)}` : ""}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ turns }),
  });
  if (!res.ok) throw new Error(`model server refused the script: ${res.status} ${await res.text()}`);
  const { id } = (await res.json()) as { id: string };
  return {
    id,
    baseURL: `${serverUrl}/s/${id}/v1`,
    async requests() {
      const r = await fetch(`${serverUrl}/scripts/${id}/requests`);
      if (!r.ok) throw new Error(`model server: ${r.status} ${await r.text()}`);
      return (await r.json()) as RecordedRequest[];
    },
  };
}
