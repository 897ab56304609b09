import { spawn, type ChildProcess } from "node:child_process";
import { cpSync, existsSync } from "node:fs";
import { connect } from "node:net";
import { join, resolve } from "node:path";
import { freePort } from "../../src/cli/local/pglite-server.js";

const root = resolve(import.meta.dirname, "../..");

/**
 * Process groups still running. A test that times out never reaches its `finally`, so whatever
 * it started would outlive the suite (and hold ports and CPU): they go when this process does.
 */
const running = new Set<number>();
process.once("exit", () => {
  for (const pid of running) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
});

export interface DevServer {
  url: string;
  /** the dev script's process (its runtime's processes run below it) */
  pid: number;
  output(): string;
  stop(): Promise<number | null>;
  /** kill -9 of the whole process group (dev.ts, wrangler, workerd): a runtime dying, not stopping; resolves once all are gone */
  kill(): Promise<void>;
}

/**
 * Runs `npm run dev`'s script as a user does (`args` go to wrangler dev), in a process group of its own, and waits for /info.
 * Under vitest, an embedded Postgres folder it would create under AGNO_DEV_DATA starts as the global setup's copy (PGlite's initdb
 * done, nothing migrated), as on a user's second start; `freshDatabase` has dev.ts create it itself.
 */
export async function startDev(
  env: Record<string, string>,
  args: string[] = [],
  opts: {
    freshDatabase?: boolean;
    /**
     * `runtime`: ready once wrangler says its runtime is, without a request to the Worker, so the
     * caller's first request is the first the Worker serves (a cold start); `info` (default): once
     * /info answers.
     */
    ready?: "info" | "runtime";
  } = {},
): Promise<DevServer> {
  // wrangler picks the runtime's internal ports itself, free when picked; a test file starting
  // its own server at the same moment can take one before workerd binds it. That start is lost
  // ("Address already in use"), not the test: start again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startDevOnce(env, args, opts);
    } catch (error) {
      if (attempt >= 3 || !String(error).includes("Address already in use")) throw error;
    }
  }
}

async function startDevOnce(
  env: Record<string, string>,
  args: string[],
  opts: { freshDatabase?: boolean; ready?: "info" | "runtime" },
): Promise<DevServer> {
  const pgliteDir = env.AGNO_DEV_DATA && join(resolve(root, env.AGNO_DEV_DATA), "pglite");
  const template = await pgliteTemplate();
  if (template && pgliteDir && !env.DATABASE_URL && !opts.freshDatabase && !existsSync(pgliteDir))
    cpSync(template, pgliteDir, { recursive: true });
  const { port, child, output } = await spawnDev(env, args);
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => (running.delete(child.pid!), r(code))));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // the group is gone
      }
      throw new Error(`dev exited early (${child.exitCode}):\n${output()}`);
    }
    if (opts.ready === "runtime") {
      if (/Ready on http/.test(output()) && (await listening(port))) break;
    } else {
      try {
        if ((await fetch(`${url}/info`)).ok) break;
      } catch {
        // not listening yet
      }
    }
    if (Date.now() > deadline) {
      process.kill(-child.pid!, "SIGKILL");
      throw new Error(`dev did not answer /info within 120 s:\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    url,
    pid: child.pid!,
    output,
    stop: async () => {
      process.kill(child.pid!, "SIGTERM");
      const timer = setTimeout(() => process.kill(-child.pid!, "SIGKILL"), 30_000);
      const code = await exited;
      clearTimeout(timer);
      // Anything of its group still running (nothing, when dev.ts shut wrangler down) goes too.
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // the group is gone
      }
      return code;
    },
    kill: async () => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // already gone
      }
      await exited;
      // workerd is reparented when wrangler dies: wait until the group has no member left.
      for (let alive = true; alive;) {
        try {
          process.kill(-child.pid!, 0);
          await new Promise((r) => setTimeout(r, 20));
        } catch {
          alive = false;
        }
      }
    },
  };
}

/** Whether something accepts connections on the loopback port, without sending it a request. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });
}

/** Runs `npm run dev`'s script as startDev does, for a start that is expected to fail: its exit code and output. */
export async function runDevToExit(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const { child, output } = await spawnDev(env, []);
  const code = await new Promise<number | null>((r) => child.once("exit", (c) => r(c)));
  running.delete(child.pid!);
  try {
    process.kill(-child.pid!, "SIGKILL");
  } catch {
    // the group is gone
  }
  return { code, output: output() };
}

/** `npm run dev`'s script in a process group of its own on a free port, its output collected. */
async function spawnDev(
  env: Record<string, string>,
  args: string[],
): Promise<{ port: number; child: ChildProcess; output: () => string }> {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  let out = "";
  // As `npm run dev` runs it: node with tsx's loader, so SIGTERM reaches dev.ts itself (tsx's own
  // CLI relays signals with a short wait that a loaded machine can miss, and then exits 143).
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/dev.ts", ...args], {
    cwd: root,
    env: { ...process.env, ...env, PORT: String(port) }, // `env.PORT` names a port of the test's own
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  running.add(child.pid!);
  return { port, child, output: () => out };
}

/** The global setup's initialized embedded Postgres folder under vitest; undefined in the scripts that start dev servers too (bench, profile). */
export async function pgliteTemplate(): Promise<string | undefined> {
  if (!process.env.VITEST) return undefined;
  const { inject } = await import("vitest");
  return inject("pgliteTemplate");
}
