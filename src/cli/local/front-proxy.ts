import {
  Agent,
  createServer,
  request,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import { connect, type Socket } from "node:net";

/** Headers that belong to one connection, not to the request or response carried on it. */
const HOP_BY_HOP = [
  "connection",
  "keep-alive",
  "transfer-encoding",
  "upgrade",
  "proxy-connection",
  "te",
  "trailer",
  "expect",
];

export interface FrontProxy {
  stop(): Promise<void>;
}

/**
 * The listener `npm run dev` puts in front of the local runtime (wrangler dev or the in-process
 * Worker on an internal port). wrangler forwards every request through its own proxy Worker to the
 * user Worker's workerd; a body that the Worker stops reading (its 413) or that the client abandons
 * midway leaves that internal connection poisoned, so the next requests of other clients get 503
 * "worker restarted mid-request" or hang. Here the whole body is read first, up to the Worker's
 * limit: an oversized one gets the Worker's 413 with `Connection: close` and its socket closed, and
 * the runtime only ever sees complete bodies. It also keeps the public port open while the runtime
 * restarts (503 with Retry-After until it is back).
 */
export async function startFrontProxy(opts: {
  port: number;
  maxBodyBytes: number;
  upstream: () => number | undefined;
}): Promise<FrontProxy> {
  const agent = new Agent({ keepAlive: true });
  const tooLarge = JSON.stringify({
    detail: `request body is larger than ${opts.maxBodyBytes} bytes`,
    error_id: "payload_too_large",
  });

  const refuse = (req: IncomingMessage, res: ServerResponse) => {
    // The answer goes out, then the connection closes. What is left of the body is read and dropped
    // for a moment: closing a socket with unread bytes resets it, which could lose the 413 itself.
    res.writeHead(413, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(tooLarge),
      connection: "close",
    });
    res.end(tooLarge, () => {
      req.socket.end();
      setTimeout(() => req.socket.destroy(), 1000).unref();
    });
    req.resume();
  };
  const unavailable = (res: ServerResponse, detail: string) => {
    if (res.headersSent) return void res.destroy();
    const body = JSON.stringify({ detail, error_id: "runtime_unavailable" });
    res.writeHead(503, { "content-type": "application/json", "retry-after": "1" }).end(body);
  };

  const server = createServer((req, res) => {
    if (Number(req.headers["content-length"] ?? 0) > opts.maxBodyBytes) return refuse(req, res);
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on("data", (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > opts.maxBodyBytes) {
        refused = true;
        return refuse(req, res);
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (refused) return;
      const port = opts.upstream();
      if (port === undefined) return unavailable(res, "the local runtime is starting or restarting");
      const headers: IncomingHttpHeaders = { ...req.headers };
      for (const name of HOP_BY_HOP) delete headers[name];
      const body = Buffer.concat(chunks);
      if (body.length > 0 || req.headers["transfer-encoding"] || req.headers["content-length"])
        headers["content-length"] = String(body.length);
      const forward = (retry: boolean) => {
        const upstream = request(
          { host: "127.0.0.1", port, method: req.method, path: req.url, headers, agent },
          (answer) => {
            const out = { ...answer.headers };
            for (const name of HOP_BY_HOP) delete out[name];
            res.writeHead(answer.statusCode ?? 502, answer.statusMessage, out);
            if (out["content-length"] === undefined) res.flushHeaders(); // an SSE stream's headers go out before its first event
            answer.pipe(res);
            answer.on("error", () => res.destroy());
          },
        );
        upstream.on("error", () => {
          // A kept-alive connection the runtime closed just as it was reused: the request never reached it.
          if (retry && upstream.reusedSocket && !res.headersSent && !res.destroyed) return forward(false);
          unavailable(res, "the local runtime is not answering");
        });
        // A client that goes away cancels its request (and so a streamed run's connection) upstream.
        res.on("close", () => {
          if (!res.writableFinished) upstream.destroy();
        });
        upstream.end(body);
      };
      forward(true);
    });
  });

  // WebSockets: the upgrade request has no body, so the two sockets are simply joined.
  server.on("upgrade", (req: IncomingMessage, client: Socket, head: Buffer) => {
    const port = opts.upstream();
    if (port === undefined)
      return void client.end("HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nConnection: close\r\n\r\n");
    const upstream = connect({ host: "127.0.0.1", port });
    const lines = [`${req.method} ${req.url} HTTP/1.1`];
    for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
    upstream.write(`${lines.join("\r\n")}\r\n\r\n`);
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client).pipe(upstream);
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
    client.on("close", () => upstream.destroy());
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, "127.0.0.1", () => resolve());
  });
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      }),
  };
}
