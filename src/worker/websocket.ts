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
  server.addEventListener("close", (evt) => {
    // The runtime leaves the server end half-open after the client's close frame (no
    // web_socket_auto_reply_to_close): unanswered, the client sees 1006 and the request never
    // ends, which workerd reports as code that "had hung". Answer with the client's code.
    try {
      if (server.readyState !== WebSocket.CLOSED) server.close(sendableCode(evt.code), evt.reason);
    } catch {
      // already closing from this side (a close we sent, now answered): nothing to answer
    }
    events.onClose?.(evt, ws);
  });
  server.addEventListener("error", (evt) => events.onError?.(evt, ws));
  server.accept();
  events.onOpen?.(new Event("open"), ws);
  return new Response(null, { status: 101, webSocket: client });
});

/** A close code that may be sent (RFC 6455 7.4): 1004-1006 and 1015 are reserved or only describe a close, so they are answered with 1000. */
function sendableCode(code: number): number {
  return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999)
    ? code
    : 1000;
}
