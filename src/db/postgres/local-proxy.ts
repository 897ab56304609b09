import { neonConfig } from "@neondatabase/serverless";

/**
 * Points the Neon driver at a local WebSocket-to-TCP proxy (`src/cli/local/ws-proxy.ts`)
 * instead of Neon's edge, so the same driver reaches PGlite or any Postgres on this machine.
 * Plain `ws://` and no pipelining: the proxy speaks raw Postgres wire bytes without TLS.
 * The Neon config is global to the isolate, which is right: one isolate, one proxy.
 */
export function useLocalWsProxy(address: string, webSocketConstructor?: unknown): void {
  neonConfig.wsProxy = (host, port) => `${address}/v1?address=${host}:${port}`;
  neonConfig.useSecureWebSocket = false;
  neonConfig.pipelineTLS = false;
  neonConfig.pipelineConnect = false;
  if (webSocketConstructor)
    neonConfig.webSocketConstructor = webSocketConstructor as typeof neonConfig.webSocketConstructor;
}
