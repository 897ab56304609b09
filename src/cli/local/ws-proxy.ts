import { createServer, type Server } from "node:http";
import { connect } from "node:net";
import { WebSocketServer } from "ws";
import { TerminateWatch } from "./terminate-watch.js";

/**
 * The WebSocket-to-TCP bridge that Neon's serverless driver speaks (`/v1?address=host:port`).
 * Workers cannot open raw TCP to a local Postgres through the Neon driver, so locally the
 * driver talks WebSocket to this proxy, which pipes the Postgres wire bytes to the server.
 * Only the addresses in `allow` are reachable: the proxy is not an open relay.
 */
export interface WsProxy {
  port: number;
  /** the value for `neonConfig.wsProxy`-style configuration: `127.0.0.1:<port>` */
  address: string;
  stop(): Promise<void>;
}

export async function startWsProxy(opts: { allow: string[]; port?: number }): Promise<WsProxy> {
  const allowed = new Set(opts.allow);
  const http: Server = createServer((_req, res) => {
    res.writeHead(426, { "content-type": "text/plain" }).end("websocket only\n");
  });
  const wss = new WebSocketServer({ server: http, path: "/v1" });
  wss.on("connection", (ws, req) => {
    const address = new URL(req.url ?? "/", "http://x").searchParams.get("address") ?? "";
    if (!allowed.has(address)) {
      ws.close(1008, "address not allowed");
      return;
    }
    const sep = address.lastIndexOf(":");
    const tcp = connect({ host: address.slice(0, sep), port: Number(address.slice(sep + 1)) });
    tcp.setNoDelay(true);
    const pending: Buffer[] = [];
    let open = false;
    tcp.on("connect", () => {
      open = true;
      for (const chunk of pending) tcp.write(chunk);
      pending.length = 0;
    });
    const watch = new TerminateWatch();
    ws.on("message", (data: Buffer) => {
      if (open) tcp.write(data);
      else pending.push(data);
      // After Terminate the server side is done: close as a real Postgres server would.
      if (watch.feed(data)) tcp.end();
    });
    tcp.on("data", (data) => ws.send(data));
    const close = () => {
      tcp.destroy();
      if (ws.readyState === ws.OPEN) ws.close();
    };
    ws.on("close", close);
    ws.on("error", close);
    tcp.on("close", close);
    tcp.on("error", close);
  });
  await new Promise<void>((resolve) => http.listen(opts.port ?? 0, "127.0.0.1", resolve));
  const addr = http.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  return {
    port,
    address: `127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close();
        http.close(() => resolve());
      }),
  };
}
