import { defineWebSocketHelper, WSContext } from "hono/ws";

/**
 * Hono's WebSocket upgrade on Workers: a WebSocketPair whose server end this isolate accepts.
 * (Kept here rather than imported from `hono/cloudflare-workers`, which is deprecated.)
 */
export const upgradeWebSocket = defineWebSocketHelper(async (c, events) => {
  if (c.req.header("upgrade")?.toLowerCase() !== "websocket") return;
  const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
  const ws = new WSContext({
    close: (code, reason) => server.close(code, reason),
    get protocol() {
      return server.protocol;
    },
    raw: server,
    get readyState() {
      return server.readyState as 0 | 1 | 2 | 3;
    },
    url: server.url ? new URL(server.url) : null,
    send: (source) => server.send(source),
  });
  server.addEventListener("message", (evt) => events.onMessage?.(evt, ws));
  server.addEventListener("close", (evt) => events.onClose?.(evt, ws));
  server.addEventListener("error", (evt) => events.onError?.(evt, ws));
  server.accept();
  return new Response(null, { status: 101, webSocket: client });
});
