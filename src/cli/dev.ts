/**
 * `agno-edge dev` (`npx agno-edge dev` in a user's project, `npm run dev` in this repository): a
 * working AgentOS on http://localhost:8787 with nothing else installed, from the wrangler.toml of
 * the project it runs in.
 * Starts the embedded Postgres (PGlite, data under .data/, kept across restarts) unless
 * DATABASE_URL names a server, the WebSocket proxy the Neon driver goes through, applies the
 * migrations, then runs `wrangler dev` with local Durable Objects, R2 and cron, on an internal port
 * behind a front proxy (local/front-proxy.ts: body limit, restarts); a workerd that dies is restarted.
 *
 * Environment: DATABASE_URL, PORT (8787), AGNO_DEV_DATA (.data), AGNO_DB_SCHEMA (ai),
 * OS_SECURITY_KEY (when set, requests need it; otherwise auth is off and a warning says so),
 * MODEL (`provider:model-id`) and the providers' keys and base URLs (see PROVIDER_ENV_VARS).
 * The config's cron triggers fire by themselves at the start of each minute they match (UTC), as
 * once deployed (local/dev-cron.ts); `AGNO_DEV_CRON=off` turns that off, and
 * `/__scheduled?cron=*+*+*+*+*` still fires the trigger on demand.
 * Arguments go to `wrangler dev` (`--test-scheduled` also serves `/__scheduled`). `AGNO_DEV_INSPECTOR=off` starts
 * the same Worker without wrangler's DevTools inspector (see in-process-worker.ts; only
 * `--test-scheduled` is understood then).
 */
import { Pool } from "@neondatabase/serverless";
import { spawn } from "node:child_process";
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import ws from "ws";
import { CURRENT_SCHEMA_VERSION } from "../../migrations/index.js";
import { useLocalWsProxy } from "../db/postgres/local-proxy.js";
import { PostgresDb } from "../db/postgres/postgres-db.js";
import { PROVIDER_ENV_VARS } from "../models/providers.js";
import { freePort, startEmbeddedPostgres, type EmbeddedPostgres } from "./local/pglite-server.js";
import { startWsProxy } from "./local/ws-proxy.js";
import { startInProcessWorker } from "./local/in-process-worker.js";
import { checkDatabaseReachable, databaseAddress, DatabaseUnreachable } from "./local/database-reachable.js";
import { startFrontProxy } from "./local/front-proxy.js";
import { descendants, killSurvivors, watchRuntime } from "./local/runtime-watch.js";
import { configuredCrons, EVERY_MINUTE, startDevCron } from "./local/dev-cron.js";

/** The public port is taken by something else: one line, not a stack. */
class PortInUse extends Error {}

const log = (line: string) => console.log(`[agno-edge] ${line}`);

export interface DevOptions {
  /** the project whose wrangler.toml is served (the current directory) */
  root: string;
  /** arguments for `wrangler dev` (`--config`, `--test-scheduled`, ...) */
  args: string[];
}

/** Runs the local AgentOS until SIGINT or SIGTERM; exits the process with 1 when it cannot start. */
export function runDev(options: DevOptions): void {
  main(options).catch((err) => {
    // A database that cannot be reached is one line (reachability names host:port only); anything else keeps its stack.
    const oneLine = err instanceof DatabaseUnreachable || err instanceof PortInUse;
    console.error(oneLine ? `[agno-edge] ${err.message}` : err);
    process.exit(1);
  });
}

async function main({ root, args }: DevOptions) {
  const port = Number(process.env.PORT ?? 8787);
  const dataDir = resolve(root, process.env.AGNO_DEV_DATA ?? ".data");
  // Load tests measure the runtime as it is deployed, without a Node hop in front of it: they turn
  // the front proxy off, and the runtime then listens on the public port itself.
  const direct = process.env.AGNO_DEV_FRONT_PROXY === "off";
  let runtime: Runtime | undefined;
  // The public port is held before anything else here asks the system for a free one: a port
  // picked for the database or the runtime could otherwise be the very one a user (or a test that
  // just released it) chose. Until the runtime is up, the proxy answers 503.
  const front = direct
    ? undefined
    : await startFrontProxy({ port, maxBodyBytes: MAX_BODY_BYTES, upstream: () => runtime?.port }).catch(
        (err: NodeJS.ErrnoException) => {
          if (err.code === "EADDRINUSE") throw new PortInUse(`port ${port} is in use: set PORT to another one`);
          throw err;
        },
      );
  let embedded: EmbeddedPostgres | undefined;
  let databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    mkdirSync(join(dataDir, "pglite"), { recursive: true });
    embedded = await startEmbeddedPostgres({ dataDir: join(dataDir, "pglite") });
    databaseUrl = embedded.url;
    log(`embedded Postgres (PGlite) on ${databaseUrl}, data in ${join(dataDir, "pglite")}`);
  } else {
    log(`using DATABASE_URL (${new URL(databaseUrl).host})`);
    await checkDatabaseReachable(databaseUrl);
  }
  const target = new URL(databaseUrl);
  const proxy = await startWsProxy({ allow: [`${target.hostname}:${target.port || "5432"}`] });

  useLocalWsProxy(proxy.address, ws);
  const pool = new Pool({ connectionString: databaseUrl });
  const setup = new PostgresDb({ pool, schema: process.env.AGNO_DB_SCHEMA }).init();
  // A server that accepts the connection and never answers would hold the start forever.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new DatabaseUnreachable(
            `the database at ${databaseAddress(databaseUrl)} accepted the connection but did not answer within ${SETUP_TIMEOUT_MS / 1000} s`,
          ),
        ),
      SETUP_TIMEOUT_MS,
    ).unref();
  });
  const state = await (embedded ? setup : Promise.race([setup, deadline])).catch((err: Error) => {
    if (err instanceof DatabaseUnreachable) throw err;
    // The driver's error carries the statement and a stack; the cause's first line is what went wrong.
    const reason = (err.cause instanceof Error ? err.cause : err).message.split("\n")[0];
    throw new DatabaseUnreachable(`the database at ${databaseAddress(databaseUrl)} could not be set up: ${reason}`);
  });
  // Cleared once the setup is done: a deadline left to fire would reject with nothing listening
  // (the embedded database never races it) and end the process half a minute into the session.
  clearTimeout(timer);
  await pool.end();
  log(
    state === "current"
      ? `database schema is current (${CURRENT_SCHEMA_VERSION})`
      : "database holds agno 2.x sessions: POST /databases/all/migrate to migrate them",
  );

  const vars = [`DATABASE_URL:${databaseUrl}`, `DB_WS_PROXY:${proxy.address}`];
  const runtimeVars = [
    "AGNO_DB_SCHEMA",
    "AGNO_RUN_EVENTS_TTL_SECONDS",
    "AGNO_RUN_HEARTBEAT_SECONDS",
    "AGNO_SSE_PING_SECONDS",
    "AGNO_BACKGROUND_MAX_CONCURRENCY",
    "AGNO_QUEUE_MAX_DEPTH",
    "AGNO_USER_MAX_JOBS",
    "AGNO_USER_MAX_SCHEDULES",
    "AGNO_USER_MAX_WEBSOCKETS",
    "AGNO_QUEUE_LEASE_SECONDS",
    "AGNO_QUEUE_SHARDS",
    "AGNO_QUEUE_DB_CONNECTIONS",
    "AGNO_DB_CONNECT_TIMEOUT_MS",
    "AGNO_DB_STATEMENT_TIMEOUT_MS",
    "EMBEDDER",
    "AGNO_KNOWLEDGE_MAX_UPLOAD_BYTES",
    // The chat interfaces the example app turns on when their secrets are set.
    "TELEGRAM_BOT_TOKEN",
    "TELEGRAM_WEBHOOK_SECRET",
    "TELEGRAM_API_URL",
    "SLACK_BOT_TOKEN",
    "SLACK_SIGNING_SECRET",
    "SLACK_API_URL",
    "WHATSAPP_ACCESS_TOKEN",
    "WHATSAPP_PHONE_NUMBER_ID",
    "WHATSAPP_VERIFY_TOKEN",
    "WHATSAPP_APP_SECRET",
    "WHATSAPP_API_URL",
    // SuperGrok sign-in at /models/xai/login.
    "XAI_TOKEN_ENCRYPTION_KEY",
    "XAI_OAUTH_ISSUER",
    // Tracing (AGNO_TRACING is set below when not given).
    "AGNO_TRACE_SAMPLE_RATIO",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_HEADERS",
    "OTEL_EXPORTER_OTLP_TIMEOUT",
    "OTEL_SERVICE_NAME",
  ];
  for (const name of [...runtimeVars, "MODEL", ...PROVIDER_ENV_VARS]) {
    if (process.env[name]) vars.push(`${name}:${process.env[name]}`);
  }
  log(
    process.env.MODEL
      ? `MODEL is ${process.env.MODEL}`
      : "no MODEL set: agents whose model comes from MODEL answer an error that says how to configure one",
  );
  // Locally, runs are traced into the database by default (the /traces routes show them); a
  // deployment traces only when configured. With a collector named too, spans go to both.
  const tracing = process.env.AGNO_TRACING ?? (process.env.OTEL_EXPORTER_OTLP_ENDPOINT ? "both" : "db");
  vars.push(`AGNO_TRACING:${tracing}`);
  log(`tracing: ${tracing} (AGNO_TRACING)`);
  for (const name of ["JWT_VERIFICATION_KEYS", "JWT_AUDIENCE", "JWT_ISSUER", "AGNO_USER_ISOLATION"]) {
    if (process.env[name]) vars.push(`${name}:${process.env[name]}`);
  }
  if (process.env.OS_SECURITY_KEY) {
    vars.push(`OS_SECURITY_KEY:${process.env.OS_SECURITY_KEY}`);
  } else if (process.env.JWT_VERIFICATION_KEYS) {
    log("JWT authentication on (JWT_VERIFICATION_KEYS)");
  } else {
    vars.push("AGNO_AUTH:none");
    log(
      "WARNING: authentication is off (AGNO_AUTH=none) for local development; set OS_SECURITY_KEY to require a bearer key",
    );
  }
  const inProcess = process.env.AGNO_DEV_INSPECTOR === "off";
  const varsObject = Object.fromEntries(vars.map((v) => [v.slice(0, v.indexOf(":")), v.slice(v.indexOf(":") + 1)]));
  let stopping = false;
  const crons = cronsToFire(configPathOf(root, args), port);
  // wrangler dev then says no more that crons need firing by hand (and serves /__scheduled too).
  const runtimeArgs = args.includes("--test-scheduled") ? args : [...args, "--test-scheduled"];
  const project = { root, dataDir, args: runtimeArgs };
  const startRuntime = () =>
    inProcess
      ? startInProcessRuntime(project, varsObject, direct ? port : undefined)
      : startWranglerRuntime(project, vars, (code) => void stop(code ?? 1), direct ? port : undefined);
  // The public port is the front proxy's; the runtime listens on an internal one (see front-proxy.ts).
  runtime = await startRuntime();
  log(
    inProcess
      ? `AgentOS on http://localhost:${port}, without the DevTools inspector (AGNO_DEV_INSPECTOR=off)`
      : `AgentOS on http://localhost:${port}  (try: curl localhost:${port}/info)`,
  );

  const cron = crons && startDevCron({ crons, port: () => runtime?.port, log });

  let restarting: Promise<void> | undefined;
  const watch = watchRuntime({
    root: () => runtime?.root,
    probe: async () => {
      if (!runtime) return true;
      try {
        await fetch(`http://127.0.0.1:${runtime.port}/info`, { signal: AbortSignal.timeout(5000) });
        return true;
      } catch {
        return false;
      }
    },
    onDead: async () => {
      if (stopping || !runtime) return;
      log("the runtime (workerd) died: restarting it");
      const dead = runtime;
      runtime = undefined;
      restarting = (async () => {
        // A runtime whose workerd was killed may never finish shutting down: it gets a while, then is left behind.
        await Promise.race([dead.stop(), new Promise((r) => setTimeout(r, 15_000).unref())]);
        if (!stopping) runtime = await startRuntime();
      })();
      await restarting;
    },
  });

  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    watch.stop();
    cron?.stop();
    await restarting?.catch(() => undefined); // a runtime being started is stopped too, not orphaned
    await runtime?.stop();
    await front?.stop();
    await proxy.stop();
    await embedded?.stop(); // closes PGlite cleanly so its files are consistent on disk
    process.exit(code);
  };
  process.on("SIGINT", () => void stop(0));
  process.on("SIGTERM", () => void stop(0));
}

/** The wrangler config `wrangler dev` reads: `--config`'s (or `-c`'s), else the project's wrangler.toml. */
function configPathOf(root: string, args: string[]): string {
  const flag = args.findIndex((a) => a === "--config" || a === "-c");
  const inline = args.find((a) => a.startsWith("--config="));
  const given = flag !== -1 ? args[flag + 1] : inline?.slice("--config=".length);
  return resolve(root, given ?? "wrangler.toml");
}

/** The config's crons, to fire every minute they match; undefined with AGNO_DEV_CRON=off or none configured. */
function cronsToFire(configPath: string, port: number): string[] | undefined {
  const byHand = `curl "localhost:${port}/__scheduled?cron=*+*+*+*+*" fires the trigger by hand`;
  if (process.env.AGNO_DEV_CRON === "off") {
    log(`cron triggers off (AGNO_DEV_CRON=off): ${byHand}`);
    return undefined;
  }
  const configured = configuredCrons(configPath);
  if (configured?.length === 0) {
    log(`no cron triggers in ${configPath}: schedules do not run by themselves; ${byHand}`);
    return undefined;
  }
  const crons = configured ?? [EVERY_MINUTE];
  log(`cron triggers (${crons.join(", ")}) fire on the minute, in UTC; AGNO_DEV_CRON=off turns them off`);
  return crons;
}

/** How long a DATABASE_URL server gets to answer the start's schema check and migrations. */
const SETUP_TIMEOUT_MS = 30_000;

/** The largest request body the Worker accepts (AgentOSOptions.maxBodyBytes' default); the front proxy refuses larger ones first. */
const MAX_BODY_BYTES = 1024 * 1024;

interface Runtime {
  /** the internal port the front proxy forwards to */
  port: number;
  /** the process the runtime's workerd processes run under */
  root: number;
  stop(): Promise<void>;
}

interface Project {
  root: string;
  dataDir: string;
  args: string[];
}

/** The Worker through wrangler's programmatic API, in this process (AGNO_DEV_INSPECTOR=off). */
async function startInProcessRuntime(
  { root, dataDir, args }: Project,
  vars: Record<string, string>,
  publicPort?: number,
): Promise<Runtime> {
  const internal = publicPort ?? (await freePort());
  const worker = await startInProcessWorker({
    configPath: configPathOf(root, args),
    port: internal,
    vars,
    persistTo: join(dataDir, "wrangler"),
    testScheduled: args.includes("--test-scheduled"),
  });
  return { port: internal, root: process.pid, stop: () => worker.stop() };
}

/** `wrangler dev` on an internal port; `onExit` runs when wrangler exits without being asked to. */
async function startWranglerRuntime(
  { root, dataDir, args }: Project,
  vars: string[],
  onExit: (code: number | null) => void,
  publicPort?: number,
): Promise<Runtime> {
  const internal = publicPort ?? (await freePort());
  // wrangler's own CLI module, as its `bin` wrapper runs it: the wrapper does not pass SIGTERM on,
  // so stopping it would orphan the real wrangler and its workerd processes.
  const wrangler = spawn(
    process.execPath,
    [
      "--no-warnings",
      "--experimental-vm-modules",
      wranglerCli(root),
      "dev",
      "--ip",
      "127.0.0.1",
      "--port",
      String(internal),
      "--inspector-port",
      String(await freePort()),
      "--persist-to",
      join(dataDir, "wrangler"),
      "--show-interactive-dev-session=false",
      ...vars.flatMap((v) => ["--var", v]),
      // `--test-scheduled`, `--config` and other wrangler dev flags pass through.
      ...args,
    ],
    // No metrics to Cloudflare and no fetch of the `Request.cf` placeholder: a local run calls no one.
    {
      cwd: root,
      stdio: ["ignore", "inherit", "inherit"],
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
    },
  );
  let stopping = false;
  wrangler.on("exit", (code) => {
    if (!stopping) onExit(code);
  });
  return {
    port: internal,
    root: wrangler.pid!,
    stop: async () => {
      stopping = true;
      const below = await descendants(wrangler.pid!);
      // wrangler dev shuts down (with its workerd processes) on SIGINT, as on Ctrl-C; SIGTERM it ignores.
      if (wrangler.exitCode === null) wrangler.kill("SIGINT");
      const killer = setTimeout(() => wrangler.kill("SIGKILL"), 10_000);
      await new Promise((r) =>
        wrangler.exitCode === null && wrangler.signalCode === null ? wrangler.once("exit", r) : r(null),
      );
      clearTimeout(killer);
      // Whatever wrangler left behind (a workerd it could not reach, once killed) goes too.
      await killSurvivors(below);
    },
  };
}

/** The project's own wrangler (a peer dependency: the version the project deploys with), else the one beside this package. */
function wranglerCli(root: string): string {
  for (const from of [join(root, "package.json"), import.meta.url]) {
    try {
      return join(dirname(createRequire(from).resolve("wrangler/package.json")), "wrangler-dist", "cli.js");
    } catch {
      // not installed there
    }
  }
  throw new Error("wrangler is not installed: `npm install --save-dev wrangler` in the project");
}
