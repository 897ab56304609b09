/**
 * `npm run startup-profile`: what a cold start of the Worker costs before it serves its first
 * request (its global scope: every module's top-level code), as `wrangler check startup` samples
 * it in workerd. Prints one JSON line: the sampled startup CPU and GC milliseconds (medians over
 * `--runs`, of the minified bundle `wrangler deploy` uploads), and where they go by source module.
 *
 * The attribution profiles an unminified build in which a marker call is inserted before each
 * module's (or, for a package, each run of modules') top-level code, at the `// path` comments
 * esbuild writes. Each marker spins for a few sampling intervals, so the profile's timeline says
 * which module's top-level code every other sample ran under (code run later from an esbuild
 * `__esm`/`__commonJS` wrapper goes to the wrapped module); the markers' own samples are left out.
 * `top_modules` is that inclusive cost per module, `direct_calls` what it called into, and
 * `self_by_package` the self time by the package whose code was running.
 *
 *   npm run startup-profile                     # 5 runs of each
 *   npm run startup-profile -- --runs 9 --config path/wrangler.toml
 *   npm run startup-profile -- --keep /tmp/dir  # keeps the bundles and the .cpuprofile files
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSandbox } from "./build-sandbox.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

function arg(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? undefined : process.argv[at + 1];
}

const runs = Number(arg("runs") ?? 5);
const config = resolve(arg("config") ?? join(root, "wrangler.toml"));
const keep = arg("keep");
const top = Number(arg("top") ?? 25);
/** a function name (`get process`, `createOpenAI`): which modules' top-level code spent what under it */
const focus = arg("focus");
const wrangler = createRequire(import.meta.url).resolve("wrangler/bin/wrangler.js");

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function wranglerRun(args: string[]): void {
  const done = spawnSync(process.execPath, [wrangler, ...args], {
    cwd: dirname(config),
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" },
    encoding: "utf8",
  });
  if (done.status !== 0) {
    process.stderr.write(done.stdout + done.stderr);
    throw new Error(`wrangler ${args[0]} failed (exit ${done.status})`);
  }
}

/** `wrangler deploy --dry-run --outfile`: the multipart upload, as `wrangler check startup` builds it. */
function build(outfile: string, minify: boolean): void {
  wranglerRun(["deploy", "--dry-run", "--config", config, `--minify=${minify}`, "--outfile", outfile]);
}

function profile(bundle: string, outfile: string): CpuProfile {
  wranglerRun(["check", "startup", "--config", config, "--worker", bundle, "--outfile", outfile]);
  return JSON.parse(readFileSync(outfile, "utf8")) as CpuProfile;
}

async function readBundle(file: string): Promise<FormData> {
  const bytes = readFileSync(file);
  const boundary = bytes.subarray(2, bytes.indexOf(10)).toString().trim();
  return new Response(bytes, { headers: { "content-type": `multipart/form-data; boundary=${boundary}` } }).formData();
}

/** `zod`, `@hono/zod-openapi`, or the repository's own file. */
function groupOf(path: string): string {
  const at = path.lastIndexOf("node_modules/");
  if (at === -1) return path;
  const parts = path.slice(at + "node_modules/".length).split("/");
  return parts[0]!.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

const moduleComment = /^\/\/ ((?:src|node_modules)\/\S+)$/;
const markerName = /^__startupMark(\d+)$/;

/**
 * The main module with a marker call before each group's top-level code (on the comment's own
 * line, so line numbers stay those of the build) and the module each line belongs to.
 */
function instrument(source: string): { source: string; marks: string[]; lineModule: string[] } {
  const lines = source.split("\n");
  const marks: string[] = [];
  const lineModule: string[] = [];
  let current = "(bundle prelude)";
  for (const [i, line] of lines.entries()) {
    const found = moduleComment.exec(line);
    if (found) {
      if (groupOf(found[1]!) !== groupOf(current)) {
        lines[i] = `__startupMark${marks.length}();${line}`;
        marks.push(groupOf(found[1]!));
      }
      current = found[1]!;
    }
    lineModule.push(current);
  }
  // One spin function (optimized once) under a marker per group, whose name the samples carry.
  lines.push(
    "function __startupSpin() { let x = 0; for (let i = 0; i < 1.5e6; i++) x = (Math.imul(x, 31) + i) | 0; return x; }",
    ...marks.map((_, i) => `function __startupMark${i}() { globalThis.__startupSink = __startupSpin(); }`),
  );
  return { source: lines.join("\n"), marks, lineModule };
}

/** Each sample with the time until the next one (DevTools' convention), idle samples dropped. */
function samples(p: CpuProfile): Array<{ stack: ProfileNode[]; ms: number }> {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, ProfileNode>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n);
  const out: Array<{ stack: ProfileNode[]; ms: number }> = [];
  for (let i = 0; i < p.samples.length; i++) {
    const stack: ProfileNode[] = [];
    for (let n = byId.get(p.samples[i]!); n; n = parent.get(n.id)) stack.unshift(n);
    const leaf = stack[stack.length - 1]!.callFrame.functionName;
    if (leaf === "(idle)" || leaf === "(root)") continue;
    out.push({ stack: stack.slice(1), ms: (p.timeDeltas[i + 1] ?? 0) / 1000 });
  }
  return out;
}

function totals(p: CpuProfile): { cpu_ms: number; gc_ms: number } {
  const all = samples(p);
  const sum = (xs: typeof all) => xs.reduce((s, x) => s + x.ms, 0);
  return {
    cpu_ms: sum(all),
    gc_ms: sum(all.filter((s) => s.stack.at(-1)!.callFrame.functionName === "(garbage collector)")),
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const round = (n: number) => Math.round(n * 10) / 10;
const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);

/** Inclusive cost by the module whose top-level code was running, what it called, self time by package. */
function attribute(p: CpuProfile, marks: string[], lineModule: string[], main: string) {
  const byModule = new Map<string, number>();
  const calls = new Map<string, Map<string, number>>();
  const selfByPackage = new Map<string, number>();
  const focused = new Map<string, number>();
  let current = "(before the first module)";
  let markerMs = 0;
  let marked = 0;
  const seen = new Set<number>();
  const inMain = (f: CallFrame) => f.url.endsWith(`/${main}`) || f.url === main;
  const moduleAt = (f: CallFrame) => lineModule[f.lineNumber] ?? "(unknown)";
  let afterMarker = false;
  for (const { stack, ms } of samples(p)) {
    const marker = stack.map((n) => markerName.exec(n.callFrame.functionName)).find((m) => m);
    const leaf = stack.at(-1)!.callFrame;
    // The collector also runs around the markers (their compilation): its samples right after a
    // marker's are counted with the markers, left out.
    afterMarker = marker !== undefined || (afterMarker && leaf.functionName === "(garbage collector)");
    if (afterMarker) {
      if (!marker) {
        markerMs += ms;
        continue;
      }
      const k = Number(marker[1]);
      if (!seen.has(k)) marked++;
      seen.add(k);
      current = marks[k]!;
      markerMs += ms;
      continue;
    }
    const topLevel = stack.findIndex((n) => inMain(n.callFrame));
    if (leaf.functionName.startsWith("(") && topLevel === -1) {
      add(byModule, leaf.functionName, ms);
      add(selfByPackage, leaf.functionName, ms);
      continue;
    }
    // A wrapped module's body runs when it is first required, from whoever requires it.
    const wrapped = stack.findLast((n) => inMain(n.callFrame) && moduleComment.test(`// ${n.callFrame.functionName}`));
    const owner = wrapped ? groupOf(wrapped.callFrame.functionName) : current;
    add(byModule, owner, ms);
    if (focus && stack.some((n) => n.callFrame.functionName === focus)) add(focused, owner, ms);
    const callee = stack[(wrapped ? stack.indexOf(wrapped) : topLevel) + 1]?.callFrame;
    const callKey = callee
      ? `${callee.functionName || "(anonymous)"} @ ${inMain(callee) ? groupOf(moduleAt(callee)) : callee.url || "native"}`
      : "(own code)";
    if (!calls.has(owner)) calls.set(owner, new Map());
    add(calls.get(owner)!, callKey, ms);
    const selfIn =
      stack.length - 1 === topLevel ? groupOf(owner) : inMain(leaf) ? groupOf(moduleAt(leaf)) : leaf.url || "(native)";
    add(selfByPackage, selfIn, ms);
  }
  return { byModule, calls, selfByPackage, focused, markerMs, coverage: marked / marks.length };
}

const sorted = (m: Map<string, number>, n: number) =>
  Object.fromEntries(
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => [k, round(v)]),
  );

await buildSandbox();
const work = keep ? resolve(keep) : mkdtempSync(join(tmpdir(), "agno-startup-profile-"));
mkdirSync(work, { recursive: true });
try {
  const minified = join(work, "minified.bundle");
  build(minified, true);
  const measured = Array.from({ length: runs }, (_, i) =>
    totals(profile(minified, join(work, `minified-${i}.cpuprofile`))),
  );

  const plain = join(work, "plain.bundle");
  build(plain, false);
  const form = await readBundle(plain);
  const main = (JSON.parse(String(form.get("metadata"))) as { main_module: string }).main_module;
  const entry = form.get(main) as File;
  const instrumented = instrument(await entry.text());
  form.set(main, new File([instrumented.source], entry.name, { type: entry.type }), entry.name);
  const marked = join(work, "marked.bundle");
  writeFileSync(marked, Buffer.from(await new Response(form).arrayBuffer()));
  const attributed = Array.from({ length: runs }, (_, i) =>
    attribute(profile(marked, join(work, `marked-${i}.cpuprofile`)), instrumented.marks, instrumented.lineModule, main),
  );

  // Per key, the median over the runs (a run without the key counts as 0).
  const medianOf = (pick: (a: (typeof attributed)[number]) => Map<string, number>) => {
    const keys = new Set(attributed.flatMap((a) => [...pick(a).keys()]));
    return new Map([...keys].map((k) => [k, median(attributed.map((a) => pick(a).get(k) ?? 0))]));
  };
  const byModule = medianOf((a) => a.byModule);
  const topModules = sorted(byModule, top);
  const directCalls = Object.fromEntries(
    Object.keys(topModules)
      .filter((m) => !m.startsWith("("))
      .slice(0, 12)
      .map((m) => [
        m,
        sorted(
          medianOf((a) => a.calls.get(m) ?? new Map()),
          5,
        ),
      ]),
  );
  // src/os/wire, src/interfaces/slack, src/index.ts, or a package
  const byArea = new Map<string, number>();
  for (const [k, v] of byModule) add(byArea, k.startsWith("src/") ? k.split("/").slice(0, 3).join("/") : k, v);
  const ours = [...byModule].filter(([k]) => k.startsWith("src/"));
  process.stdout.write(
    `${JSON.stringify({
      bench: "startup_profile",
      config: config.startsWith(root) ? config.slice(root.length + 1) : config,
      runs,
      cpu_ms: round(median(measured.map((m) => m.cpu_ms))),
      gc_ms: round(median(measured.map((m) => m.gc_ms))),
      cpu_ms_runs: measured.map((m) => round(m.cpu_ms)),
      unminified_marked_cpu_ms: round(
        median(attributed.map((a) => [...a.byModule.values()].reduce((s, v) => s + v, 0))),
      ),
      marker_coverage: round(median(attributed.map((a) => a.coverage)) * 100) / 100,
      src_top_level_ms: round(ours.reduce((s, [, v]) => s + v, 0)),
      by_area: sorted(byArea, 20),
      top_modules: topModules,
      direct_calls: directCalls,
      self_by_package: sorted(
        medianOf((a) => a.selfByPackage),
        12,
      ),
      ...(focus
        ? {
            focus: {
              [focus]: sorted(
                medianOf((a) => a.focused),
                12,
              ),
            },
          }
        : {}),
    })}\n`,
  );
} finally {
  if (!keep) rmSync(work, { recursive: true, force: true });
}
