/**
 * `npm run bundle-size`: builds a Worker as `wrangler deploy` would (`--dry-run --outdir`, nothing
 * leaves the machine), prints its upload size as one JSON line (raw and gzip bytes, as wrangler
 * counts them, and the largest packages in it), and exits 1 when the gzip size is over the budget
 * in bundle-budget.json. The same line reports the browser console (dist/ui, built first: what a
 * browser downloads to open /ui, each file gzipped as it is sent) against its own budget in
 * bundle-budget-ui.json (`--ui-budget`), and over that budget it exits 1 too.
 *
 *   npm run bundle-size                                  # the example Worker, wrangler.toml
 *   npm run bundle-size -- --config path/wrangler.toml   # another Worker, same budget
 *   npm run bundle-size -- --budget path/budget.json --metafile out.json
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { buildSandbox } from "./build-sandbox.js";
import { buildUi } from "./build-ui.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

interface Budget {
  config?: string;
  maxGzipBytes: number;
}

interface Metafile {
  outputs: Record<string, { entryPoint?: string; inputs: Record<string, { bytesInOutput: number }> }>;
}

function arg(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? undefined : process.argv[at + 1];
}

/** `zod`, `@ai-sdk/openai`, or `src/codemode` for the repository's own files. */
function packageOf(input: string): string {
  const at = input.lastIndexOf("node_modules/");
  if (at === -1)
    return input
      .replace(/^(\.\.\/)+/, "")
      .split("/")
      .slice(0, 2)
      .join("/");
  const parts = input.slice(at + "node_modules/".length).split("/");
  return parts[0]!.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

const budgetPath = resolve(arg("budget") ?? join(root, "bundle-budget.json"));
const budget = JSON.parse(readFileSync(budgetPath, "utf8")) as Budget;
const config = resolve(arg("config") ?? resolve(dirname(budgetPath), budget.config ?? "wrangler.toml"));
const metafileOut = arg("metafile");
const uiBudgetPath = resolve(arg("ui-budget") ?? join(root, "bundle-budget-ui.json"));
const uiBudget = JSON.parse(readFileSync(uiBudgetPath, "utf8")) as Budget;

/** The console's files: raw bytes, and gzip bytes as a browser receives them (each file on its own). */
async function consoleSize() {
  const dir = join(root, "dist/ui");
  const files = (await buildUi(dir)).sort();
  const sizes = files.map((f) => {
    const content = readFileSync(join(dir, f));
    return { raw: content.byteLength, gzip: gzipSync(content, { level: 9 }).byteLength };
  });
  const gzipBytes = sizes.reduce((sum, s) => sum + s.gzip, 0);
  return {
    files,
    raw_bytes: sizes.reduce((sum, s) => sum + s.raw, 0),
    gzip_bytes: gzipBytes,
    budget_gzip_bytes: uiBudget.maxGzipBytes,
    within_budget: gzipBytes <= uiBudget.maxGzipBytes,
  };
}

// The example's CodeMode sandbox is generated source; the bundle needs it current. The console's
// files are built before wrangler reads a config whose [assets] names them.
await buildSandbox();
const page = await consoleSize();
const work = mkdtempSync(join(tmpdir(), "agno-bundle-size-"));
try {
  const outdir = join(work, "out");
  const metafile = join(work, "meta.json");
  const wrangler = createRequire(import.meta.url).resolve("wrangler/bin/wrangler.js");
  const built = spawnSync(
    process.execPath,
    [wrangler, "deploy", "--dry-run", "--config", config, "--outdir", outdir, "--metafile", metafile],
    {
      cwd: dirname(config),
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" },
      encoding: "utf8",
    },
  );
  if (built.status !== 0) {
    process.stderr.write(built.stdout + built.stderr);
    throw new Error(`wrangler deploy --dry-run failed (exit ${built.status})`);
  }
  const meta = JSON.parse(readFileSync(metafile, "utf8")) as Metafile;
  if (metafileOut) writeFileSync(metafileOut, JSON.stringify(meta));
  const [mainPath, main] = Object.entries(meta.outputs).find(([, o]) => o.entryPoint)!;
  const mainName = mainPath.split("/").pop()!;
  // What wrangler uploads: the main module and the modules beside it (the QuickJS WebAssembly);
  // not the source map or the README wrangler writes for people. Gzipped together as wrangler does.
  const others = readdirSync(outdir)
    .filter((f) => f !== mainName && !f.endsWith(".map") && f !== "README.md")
    .sort();
  const contents = [...others, mainName].map((f) => readFileSync(join(outdir, f)));
  const rawBytes = contents.reduce((sum, c) => sum + c.byteLength, 0);
  const gzipBytes = gzipSync(Buffer.concat(contents)).byteLength;
  const byPackage = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(main.inputs))
    byPackage.set(packageOf(input), (byPackage.get(packageOf(input)) ?? 0) + bytesInOutput);
  for (const [i, f] of others.entries()) byPackage.set(f, contents[i]!.byteLength);
  const largest = Object.fromEntries([...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 12));
  const within = gzipBytes <= budget.maxGzipBytes;
  const mib = (n: number) => Number((n / 1024 / 1024).toFixed(3));
  process.stdout.write(
    `${JSON.stringify({
      bench: "bundle_size",
      config: config.startsWith(root) ? config.slice(root.length + 1) : config,
      raw_bytes: rawBytes,
      gzip_bytes: gzipBytes,
      raw_mib: mib(rawBytes),
      gzip_mib: mib(gzipBytes),
      budget_gzip_bytes: budget.maxGzipBytes,
      within_budget: within,
      modules: [...others, mainName],
      largest_raw_bytes: largest,
      console: page,
    })}\n`,
  );
  if (!within) {
    process.stderr.write(
      `[bundle-size] ${gzipBytes} gzip bytes is over the budget of ${budget.maxGzipBytes} (${budgetPath})\n`,
    );
    process.exitCode = 1;
  }
  if (!page.within_budget) {
    process.stderr.write(
      `[bundle-size] the console's ${page.gzip_bytes} gzip bytes is over its budget of ${uiBudget.maxGzipBytes} (${uiBudgetPath})\n`,
    );
    process.exitCode = 1;
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
