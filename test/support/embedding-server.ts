import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

/**
 * A scripted embedding server speaking OpenAI's `POST /v1/embeddings` wire (what
 * `@ai-sdk/openai`'s `.embedding()` and OpenAI-compatible servers use), answering deterministic
 * vectors: a hashed bag of words, L2-normalised, so texts sharing words are near in cosine
 * distance and the same text always gets the same vector.
 *
 * Scripted failures: `failNext(status, n)` answers the next n requests with that status (a 429
 * or 5xx tests retries); `failAfter(okRequests, status)` answers that many requests, then fails
 * every later one (an embedder dying mid-ingestion). `requests` records each request's inputs.
 */
export interface EmbeddingServer {
  url: string;
  /** the base URL for the OpenAI provider (`<url>/v1`) */
  baseURL: string;
  requests: Array<{ model: string; input: string[]; dimensions?: number }>;
  failNext(status: number, times?: number): void;
  failAfter(okRequests: number, status?: number): void;
  reset(): void;
  stop(): Promise<void>;
}

/** FNV-1a of a string, as an unsigned 32-bit integer. */
function fnv(s: string, seed = 0x811c9dc5): number {
  let h = seed;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** The deterministic vector of a text: each word adds ±1 at two hashed positions; normalised. */
export function hashedVector(text: string, dimensions: number): number[] {
  const v = new Array<number>(dimensions).fill(0);
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  for (const w of words) {
    const h1 = fnv(w);
    const h2 = fnv(w, 0x9747b28c);
    v[h1 % dimensions]! += h1 & 0x80000000 ? 1 : -1;
    v[h2 % dimensions]! += h2 & 1 ? 0.5 : -0.5;
  }
  const norm = Math.sqrt(v.reduce((a, x) => a + x * x, 0));
  if (norm === 0) {
    v[0] = 1;
    return v;
  }
  return v.map((x) => x / norm);
}

export async function startEmbeddingServer(opts: { defaultDimensions?: number } = {}): Promise<EmbeddingServer> {
  const requests: EmbeddingServer["requests"] = [];
  let failing: { status: number; times: number } | null = null;
  let okLeft: { n: number; status: number } | null = null;

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method !== "POST" || !req.url?.endsWith("/v1/embeddings"))
      return send(res, 404, { error: { message: "not found" } });
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
      model: string;
      input: string | string[];
      dimensions?: number;
    };
    const input = Array.isArray(body.input) ? body.input : [body.input];
    requests.push({ model: body.model, input, ...(body.dimensions ? { dimensions: body.dimensions } : {}) });
    if (failing && failing.times > 0) {
      failing.times--;
      return send(res, failing.status, {
        error: { message: `scripted failure ${failing.status}`, type: "server_error" },
      });
    }
    if (okLeft) {
      if (okLeft.n <= 0)
        return send(res, okLeft.status, {
          error: { message: `scripted failure ${okLeft.status}`, type: "server_error" },
        });
      okLeft.n--;
    }
    const dims = body.dimensions ?? opts.defaultDimensions ?? 64;
    send(res, 200, {
      object: "list",
      model: body.model,
      data: input.map((text, index) => ({ object: "embedding", index, embedding: hashedVector(text, dims) })),
      usage: { prompt_tokens: input.join(" ").split(/\s+/).length, total_tokens: input.join(" ").split(/\s+/).length },
    });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => send(res, 500, { error: { message: String(err) } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    baseURL: `${url}/v1`,
    requests,
    failNext: (status, times = 1) => {
      failing = { status, times };
    },
    failAfter: (n, status = 500) => {
      okLeft = { n, status };
    },
    reset: () => {
      failing = null;
      okLeft = null;
      requests.length = 0;
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
