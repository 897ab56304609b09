/**
 * The runtime under load, started as a user starts it: `npm run dev`'s script (scripts/dev.ts),
 * which runs the embedded Postgres (PGlite), the WebSocket proxy, the migrations and
 * `wrangler dev` over src/index.ts. Its data folder is a fresh temporary one, never .data/.
 *
 * dev.ts runs in a process group of its own, so that stop() can sweep wrangler's workerd
 * children too if anything is left behind; the group is also killed when the bench exits.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { PROVIDER_ENV_VARS } from "../../src/models/providers.js";
import { freePort } from "../../src/cli/local/pglite-server.js";

export interface Runtime {
  url: string;
  /** dev.ts's pid, which is also the id of the runtime's process group */
  pid: number;
  /** the last of dev.ts's output (wrangler's included), to say what went wrong */
  output(): string;
  /**
   * How often wrangler rebuilt the Worker since it started: it watches the source, so an edit
   * under src/ during a measurement reloads the Worker mid-load (seconds of stall, new isolates).
   */
  reloads(): number;
  stop(): Promise<void>;
  /** kill -9 of the whole process group (dev.ts, wrangler, workerd, the proxy): a crash, nothing shut down */
  kill(): Promise<void>;
}

const DEV_SCRIPT = fileURLToPath(new URL("../dev.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const TSX = import.meta.resolve("tsx");
const START_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 30_000;
/** enough of dev.ts's output (without the log lines of successful requests) to say why it failed */
const OUTPUT_KEPT = 20_000;

/** What dev.ts reads from the environment: the bench sets each one itself, so the caller's shell cannot leak in. */
const DEV_VARS = [
  ...[
    "DATABASE_URL",
    "AGNO_DB_SCHEMA",
    "AGNO_RUN_EVENTS_TTL_SECONDS",
    "AGNO_BACKGROUND_MAX_CONCURRENCY",
    "AGNO_QUEUE_MAX_DEPTH",
    "AGNO_USER_MAX_JOBS",
    "AGNO_QUEUE_LEASE_SECONDS",
  ],
  ...[
    "OS_SECURITY_KEY",
    "JWT_VERIFICATION_KEYS",
    "JWT_AUDIENCE",
    "JWT_ISSUER",
    "AGNO_USER_ISOLATION",
    "AGNO_AUTH",
    "MODEL",
    ...PROVIDER_ENV_VARS,
  ],
];

/** Running runtimes and how to stop each. */
const live = new Map<ChildProcess, () => Promise<void>>();

function killGroup(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, "SIGKILL");
  } catch {
    // the group is gone already
  }
}

// Their own process group does not get the terminal's Ctrl-C: stop them, then leave. And as a
// last resort, a bench that exits anyhow does not leave a wrangler running.
let handlersInstalled = false;
function installHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  // Ctrl-C may arrive twice (tsx relays it to the process the terminal already sent it to):
  // the second must not end the process in the middle of stopping.
  let stopping = false;
  const onSignal = () => {
    if (stopping) return;
    stopping = true;
    void Promise.allSettled([...live.values()].map((stop) => stop())).finally(() => process.exit(130));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  process.on("exit", () => [...live.keys()].forEach(killGroup));
}

export async function startRuntime(env: Record<string, string>, dataDir: string): Promise<Runtime> {
  const port = await freePort();
  const childEnv: NodeJS.ProcessEnv = { ...process.env };
  for (const name of DEV_VARS) delete childEnv[name];
  // The runtime as deployed: no dev-only front proxy between the load and the Worker.
  Object.assign(childEnv, { AGNO_DEV_FRONT_PROXY: "off" }, env, { AGNO_DEV_DATA: dataDir, PORT: String(port) });
  const child = spawn(process.execPath, ["--import", TSX, DEV_SCRIPT], {
    cwd: ROOT,
    env: childEnv,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  installHandlers();
  // wrangler logs every request; the successful ones would push the errors out of what is kept.
  let output = "";
  let partial = "";
  let reloads = 0;
  const keep = (d: Buffer) => {
    const lines = (partial + d.toString("utf8")).split("\n");
    partial = lines.pop()!;
    const kept = lines.filter((l) => !/^\[wrangler:info\] \w+ \S+ 2\d\d /.test(l));
    reloads += kept.filter((l) => l.includes("Reloading local server")).length;
    if (kept.length) output = (output + kept.join("\n") + "\n").slice(-OUTPUT_KEPT);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      // dev.ts stops wrangler, then the proxy, then closes PGlite.
      child.kill("SIGTERM");
      const timer = setTimeout(() => killGroup(child), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
    killGroup(child); // anything of the group still alive (a workerd wrangler did not wait for)
    live.delete(child);
  };
  live.set(child, stop);
  const kill = async () => {
    killGroup(child);
    if (child.exitCode === null && child.signalCode === null) await exited;
    live.delete(child);
  };

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      await stop();
      throw new Error(`npm run dev exited early (${child.exitCode ?? child.signalCode}):\n${output}`);
    }
    try {
      if ((await fetch(`${url}/info`)).ok)
        return { url, pid: child.pid!, output: () => output, reloads: () => reloads, stop, kill };
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`npm run dev did not answer /info within ${START_TIMEOUT_MS / 1000} s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}
