import { connect, createServer, type Server, type Socket } from "node:net";

/**
 * How the proxy treats the database behind it:
 * - `forward`: bytes pass both ways, as if the runtime talked to the database directly;
 * - `refuse`: the port is closed (new connections get ECONNREFUSED) and open ones are cut, as when
 *   the database process is down;
 * - `blackhole`: connections are accepted and nothing ever answers (what a dead host behind a
 *   firewall that drops packets, or a frozen server, looks like); open connections go silent.
 */
export type FaultMode = "forward" | "refuse" | "blackhole";

export interface FaultProxy {
  /** `127.0.0.1:<port>`, fixed for the proxy's life: the port is the same after a refuse */
  host: string;
  port: number;
  /** `target` (a postgres:// URL) with its host and port replaced by the proxy's */
  url: string;
  mode(): FaultMode;
  /** switches at once; open connections are cut when leaving `blackhole` (their bytes were lost) or entering `refuse` */
  set(mode: FaultMode): Promise<void>;
  /** connections accepted since the proxy started (a blackhole accepts and holds them) */
  accepted(): number;
  stop(): Promise<void>;
}

/** A TCP proxy in front of a Postgres server whose failure mode a test switches at runtime. */
export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const upstream = new URL(target);
  const upstreamHost = upstream.hostname;
  const upstreamPort = Number(upstream.port || 5432);
  let mode: FaultMode = "forward";
  let accepted = 0;
  const open = new Set<{ client: Socket; server?: Socket; silent: boolean }>();

  const onConnection = (client: Socket) => {
    accepted++;
    const pair: { client: Socket; server?: Socket; silent: boolean } = { client, silent: mode === "blackhole" };
    open.add(pair);
    const drop = () => {
      open.delete(pair);
      client.destroy();
      pair.server?.destroy();
    };
    client.on("error", drop);
    client.on("close", drop);
    // A blackholed connection reads and drops what it is sent, and never answers.
    if (pair.silent) return void client.resume();
    const server = connect({ host: upstreamHost, port: upstreamPort });
    pair.server = server;
    server.setNoDelay(true);
    client.setNoDelay(true);
    client.on("data", (data) => void (pair.silent || server.write(data)));
    server.on("data", (data) => void (pair.silent || client.write(data)));
    server.on("error", drop);
    server.on("close", drop);
  };

  let server: Server = createServer(onConnection);
  await listen(server, 0);
  const port = (server.address() as { port: number }).port;
  const url = new URL(target);
  url.hostname = "127.0.0.1";
  url.port = String(port);

  const cut = (which: (p: { silent: boolean }) => boolean) => {
    for (const pair of [...open]) {
      if (!which(pair)) continue;
      open.delete(pair);
      pair.client.destroy();
      pair.server?.destroy();
    }
  };

  return {
    host: "127.0.0.1",
    port,
    url: url.toString(),
    mode: () => mode,
    accepted: () => accepted,
    async set(next) {
      if (next === mode) return;
      const was = mode;
      mode = next;
      if (next === "refuse") {
        cut(() => true);
        await close(server);
        return;
      }
      if (was === "refuse") {
        server = createServer(onConnection);
        await listen(server, port);
      }
      if (next === "blackhole") for (const pair of open) pair.silent = true;
      // Bytes sent into the blackhole are gone, so its connections cannot carry on.
      if (was === "blackhole") cut((p) => p.silent);
    },
    async stop() {
      cut(() => true);
      if (mode !== "refuse") await close(server);
    },
  };
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
