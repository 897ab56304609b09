import { Pool } from "@neondatabase/serverless";
import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import ws from "ws";
import { freePort, startEmbeddedPostgres } from "../../src/cli/local/pglite-server.js";
import { startWsProxy } from "../../src/cli/local/ws-proxy.js";
import { useLocalWsProxy } from "../../src/db/postgres/local-proxy.js";
import { PostgresDb } from "../../src/db/postgres/postgres-db.js";
import { pgliteTemplate } from "./dev-server.js";
import { until } from "./until.js";

const root = resolve(import.meta.dirname, "../..");

/** A `wrangler dev` the crash tests kill with SIGKILL, process group and all. */
export interface WranglerRuntime {
  url: string;
  pid: number;
  output(): string;
  /** SIGKILL to the whole process group (wrangler, workerd, esbuild); resolves once all are gone */
  kill(): Promise<void>;
}

const groupAlive = (pid: number) => {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * `wrangler dev` as scripts/dev.ts runs it (of `config`, default the example Worker's), in a
 * process group of its own, with `vars` and its Durable Object state in `stateDir`, once /info answers.
 */
export async function startWranglerRuntime(opts: {
  stateDir: string;
  vars: Record<string, string>;
  config?: string;
}): Promise<WranglerRuntime> {
  const port = await freePort();
  let out = "";
  const child: ChildProcess = spawn(
    join(root, "node_modules", ".bin", "wrangler"),
    [
      "dev",
      ...(opts.config ? ["--config", opts.config] : []),
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
      "--inspector-port",
      String(await freePort()),
      "--persist-to",
      opts.stateDir,
      "--show-interactive-dev-session=false",
      ...Object.entries(opts.vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]),
    ],
    {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
    },
  );
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<void>((r) => (child.exitCode !== null ? r() : child.once("exit", () => r())));
  const pid = child.pid!;
  const runtime: WranglerRuntime = {
    url: `http://127.0.0.1:${port}`,
    pid,
    output: () => out,
    kill: async () => {
      if (groupAlive(pid)) process.kill(-pid, "SIGKILL");
      await exited;
      // workerd is wrangler's child, reparented when wrangler dies: wait until it is reaped too.
      await until(
        async () => groupAlive(pid),
        (alive) => !alive,
        `process group ${pid} to be gone`,
        { ms: 10_000, every: 20, retryErrors: true },
      );
    },
  };
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited early (${child.exitCode}):\n${out}`);
    try {
      if ((await fetch(`${runtime.url}/info`)).ok) return runtime;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await runtime.kill();
      throw new Error(`wrangler dev did not answer /info within 120 s:\n${out}`);
    }
    await sleep(100);
  }
}

/** The database a crash test's runtimes use, outliving them as Neon does: PGlite and the WebSocket proxy in the test's process. */
export interface OutlivingDatabase {
  url: string;
  proxyAddress: string;
  /** a pool of the test's own, to read what a dead runtime left */
  direct: Pool;
  stop(): Promise<void>;
}

/** Under vitest a new `dataDir` starts as the global setup's initialized copy (see global-setup.ts), sparing PGlite's initdb. */
export async function startOutlivingDatabase(dataDir: string): Promise<OutlivingDatabase> {
  const template = await pgliteTemplate();
  if (template && !existsSync(dataDir)) cpSync(template, dataDir, { recursive: true });
  mkdirSync(dataDir, { recursive: true });
  const pg = await startEmbeddedPostgres({ dataDir });
  const proxy = await startWsProxy({ allow: [`${pg.host}:${pg.port}`] });
  useLocalWsProxy(proxy.address, ws);
  const direct = new Pool({ connectionString: pg.url, max: 2 });
  const state = await new PostgresDb({ pool: direct }).init();
  if (state !== "current") throw new Error(`the crash test's database reads as ${state}`);
  return {
    url: pg.url,
    proxyAddress: proxy.address,
    direct,
    stop: async () => {
      await direct.end().catch(() => undefined);
      await proxy.stop().catch(() => undefined);
      await pg.stop().catch(() => undefined);
    },
  };
}
