/**
 * Where the Worker's isolate spends its time while background runs are enqueued and drained:
 * `npm run profile:queue` runs `npm run dev` on the real PostgreSQL (DATABASE_URL, else
 * TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/test) with the scripted model, attaches
 * V8's sampling profiler through wrangler's DevTools inspector, enqueues PROFILE_JOBS (1,500)
 * background runs over HTTP, waits until they are done, and prints one JSON line per place:
 * `{"profile":"queue","where":…,"self_share":…,"inclusive_share":…}`, places being npm packages,
 * files of src/, and the runtime's own entries ((idle), (garbage collector), …).
 *
 * Shares, not times: the inspector slows the isolate, so the figures say where the time goes, not
 * how fast the queue is (that is `npm run bench -- queue`). PROFILE_BY=function lists the 40 functions
 * with the largest self time instead; PROFILE_OUT=file.cpuprofile also keeps the raw profile.
 */
import { Pool } from "@neondatabase/serverless";
import { execSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import WebSocket from "ws";
import { useLocalWsProxy } from "../src/db/postgres/local-proxy.js";
import { startWsProxy } from "../src/cli/local/ws-proxy.js";
import { descendants } from "../src/cli/local/runtime-watch.js";
import { startDev } from "../test/support/dev-server.js";
import { startModelServer } from "../test/support/model-server.js";
import { scriptModel } from "../test/support/model-script.js";
import { until } from "../test/support/until.js";

const JOBS = Number(process.env.PROFILE_JOBS ?? 1500);
const IN_FLIGHT = 40;
const DATABASE_URL =
  process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
/** Samples longer than this are gaps in sampling (a paused isolate), not time spent anywhere. */
const MAX_SAMPLE_US = 100_000;
/** `file` (default): shares by package and source file; `function`: by function within them, to find what to cut. */
const BY = process.env.PROFILE_BY === "function" ? "function" : "file";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; scriptId: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** A DevTools protocol session over the inspector's WebSocket. */
async function devtools(url: string) {
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => {
    socket.once("open", resolve);
    socket.once("error", reject);
  });
  let next = 0;
  const waiting = new Map<number, (result: unknown) => void>();
  const scripts = new Map<string, string>();
  socket.on("message", (data) => {
    const message = JSON.parse(String(data)) as {
      id?: number;
      result?: unknown;
      method?: string;
      params?: { scriptId: string; url: string };
    };
    if (message.id !== undefined) waiting.get(message.id)?.(message.result);
    if (message.method === "Debugger.scriptParsed" && message.params)
      scripts.set(message.params.scriptId, message.params.url);
  });
  const send = <T>(method: string, params: Record<string, unknown> = {}) =>
    new Promise<T>((resolve) => {
      const id = ++next;
      waiting.set(id, (result) => resolve(result as T));
      socket.send(JSON.stringify({ id, method, params }));
    });
  return { send, scripts, close: () => socket.close() };
}

/** For each line of the bundle, the source it came from: esbuild marks each module with a `// path` comment. */
function sourceOfLines(bundle: string): string[] {
  let current = "(bundle)";
  return bundle.split("\n").map((line) => {
    // `// ../node_modules/…`, or with the real path when node_modules is a symlink (a git worktree)
    const marker = /^\s*\/\/ ((?:\.\.\/)*(?:[\w.-]+\/)*?(?:src|node_modules|scripts)\/\S+)/.exec(line);
    if (marker) {
      const path = marker[1]!.replace(/^(\.\.\/)+/, "");
      current = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? path.replace(/^.*?(?=(?:src|scripts)\/)/, "");
    }
    return current;
  });
}

/** Self and inclusive shares of the sampled time, by place. */
function shares(profile: Profile, placeOf: (frame: ProfileNode["callFrame"]) => string) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((sample, i) => {
    const dt = profile.timeDeltas[i]!;
    if (dt > MAX_SAMPLE_US) return;
    total += dt;
    const place = placeOf(nodes.get(sample)!.callFrame);
    self.set(place, (self.get(place) ?? 0) + dt);
    const seen = new Set<string>();
    for (let id: number | undefined = sample; id !== undefined; id = parent.get(id)) {
      const p = placeOf(nodes.get(id)!.callFrame);
      if (!seen.has(p)) {
        inclusive.set(p, (inclusive.get(p) ?? 0) + dt);
        seen.add(p);
      }
    }
  });
  return { self, inclusive, total };
}

async function main() {
  const models = await startModelServer();
  const script = await scriptModel(
    models.url,
    Array.from({ length: JOBS + 50 }, () => ({ text: "ok" })),
  );
  const schema = `profile_queue_${process.pid}`;
  const key = `profile-${crypto.randomUUID()}`;
  const dev = await startDev({
    DATABASE_URL,
    AGNO_DB_SCHEMA: schema,
    OS_SECURITY_KEY: key,
    MODEL: "openai:bench-model",
    OPENAI_BASE_URL: script.baseURL,
    OPENAI_API_KEY: "sk-profile",
    AGNO_QUEUE_MAX_DEPTH: "1000000",
    AGNO_USER_MAX_JOBS: "1000000",
  });
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const enqueue = async (i: number) => {
    const res = await fetch(`${dev.url}/agents/assistant/runs`, {
      method: "POST",
      headers,
      body: JSON.stringify({ message: `job ${i}`, background: true, stream: false }),
    });
    if (res.status !== 202) throw new Error(`enqueue answered ${res.status}: ${await res.text()}`);
  };
  try {
    for (let i = 0; i < 20; i++) await enqueue(-1 - i); // warm the isolate before sampling
    // dev.ts hands wrangler a free port for its inspector; wrangler lists the Worker's isolate there.
    // Its wrangler is the one it started (below it): the public port is the front proxy's.
    const below = new Set((await descendants(dev.pid)).map((p) => p.pid));
    const args = execSync("ps -eo pid=,args=")
      .toString()
      .split("\n")
      .find((l) => below.has(Number(l.trim().split(" ")[0])) && l.includes("wrangler-dist/cli.js"));
    const port = /--inspector-port (\d+)/.exec(args ?? "")?.[1];
    if (!port) throw new Error("wrangler's inspector port not found");
    const [target] = (await (await fetch(`http://127.0.0.1:${port}/json`)).json()) as Array<{
      webSocketDebuggerUrl: string;
    }>;
    const session = await devtools(target!.webSocketDebuggerUrl);
    await session.send("Debugger.enable");
    await session.send("Profiler.enable");
    await session.send("Profiler.setSamplingInterval", { interval: 200 });
    await session.send("Profiler.start");
    const started = performance.now();
    let sent = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (sent < JOBS) await enqueue(sent++);
      }),
    );
    // A poll may meet a connection the dev proxy just closed: it is tried again.
    const stats = async () =>
      (await (await fetch(`${dev.url}/queue/stats`, { headers })).json()) as { counts: Record<string, number> };
    await until(stats, (s) => (s.counts.queued ?? 0) + (s.counts.running ?? 0) === 0, "the queue to drain", {
      ms: 600_000,
      retryErrors: true,
    });
    const seconds = (performance.now() - started) / 1000;
    const { profile } = await session.send<{ profile: Profile }>("Profiler.stop");
    // The Worker's bundle is the script the samples point into; its module markers name the sources.
    const bundleId = [...session.scripts].find(([, url]) => url.endsWith("index.js"))?.[0];
    const bundle = bundleId
      ? (await session.send<{ scriptSource: string }>("Debugger.getScriptSource", { scriptId: bundleId })).scriptSource
      : "";
    session.close();
    // PROFILE_OUT keeps the raw profile (with the bundle beside it) for DevTools or a closer look.
    if (process.env.PROFILE_OUT) {
      writeFileSync(process.env.PROFILE_OUT, JSON.stringify(profile));
      writeFileSync(`${process.env.PROFILE_OUT}.bundle.js`, bundle);
    }
    const lines = sourceOfLines(bundle);
    const fileOf = (frame: ProfileNode["callFrame"]) =>
      frame.scriptId === bundleId
        ? (lines[frame.lineNumber] ?? "(bundle)")
        : frame.url || frame.functionName || "(native)";
    const placeOf =
      BY === "file"
        ? fileOf
        : (frame: ProfileNode["callFrame"]) => `${frame.functionName || "(anonymous)"} in ${fileOf(frame)}`;
    const { self, inclusive, total } = shares(profile, placeOf);
    process.stdout.write(
      `${JSON.stringify({ profile: "queue", jobs: JOBS, seconds: Number(seconds.toFixed(2)), sampled_seconds: Number((total / 1e6).toFixed(2)) })}\n`,
    );
    // By file the inclusive shares tell most; by function, what a function itself costs does.
    const top = [...(BY === "file" ? inclusive : self).entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, BY === "file" ? 25 : 40);
    for (const [where, time] of top) {
      const share = (t: number) => Number(((t / total) * 100).toFixed(1));
      process.stdout.write(
        `${JSON.stringify({ profile: "queue", where, self_share: share(self.get(where) ?? 0), inclusive_share: share(time) })}\n`,
      );
    }
  } finally {
    await dev.stop();
    await models.stop();
    await dropSchema(schema);
  }
}

/** Drops the run's schema over the same driver the Worker uses. */
async function dropSchema(schema: string): Promise<void> {
  const { hostname, port } = new URL(DATABASE_URL);
  const proxy = await startWsProxy({ allow: [`${hostname}:${port || 5432}`] });
  useLocalWsProxy(proxy.address, WebSocket as never);
  const pool = new Pool({ connectionString: DATABASE_URL });
  try {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await pool.end();
    await proxy.stop();
  }
}

await main();
