import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

/**
 * The upload size as `npm run bundle-size` measures it (wrangler deploy --dry-run, nothing sent):
 * the example Worker stays within the budget written in bundle-budget.json, and a user's Worker
 * on one model provider and R2 holds that provider's package only and no S3 code.
 */
const root = new URL("../..", import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), "agno-bundle-test-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function bundleSize(...args: string[]) {
  const run = spawnSync(
    process.execPath,
    [join(root, "node_modules/tsx/dist/cli.mjs"), "scripts/bundle-size.ts", ...args],
    { cwd: root, encoding: "utf8" },
  );
  const line = run.stdout.trim().split("\n").pop() ?? "";
  return {
    status: run.status,
    stderr: run.stderr,
    report: (line.startsWith("{") ? JSON.parse(line) : {}) as {
      gzip_bytes: number;
      raw_bytes: number;
      budget_gzip_bytes: number;
      within_budget: boolean;
      console: {
        files: string[];
        raw_bytes: number;
        gzip_bytes: number;
        budget_gzip_bytes: number;
        within_budget: boolean;
      };
    },
  };
}

describe("bundle size", { timeout: 180_000 }, () => {
  it("the example Worker's upload is within the budget written in the repository", () => {
    const budget = JSON.parse(readFileSync(join(root, "bundle-budget.json"), "utf8")) as { maxGzipBytes: number };
    // The example carries pdf.js for its knowledge base and the MCP SDK; the library core is held to 1 MiB.
    expect(budget.maxGzipBytes).toBeLessThanOrEqual(1.75 * 1024 * 1024);
    const core = JSON.parse(readFileSync(join(root, "bundle-budget-core.json"), "utf8")) as { maxGzipBytes: number };
    expect(core.maxGzipBytes).toBeLessThanOrEqual(1024 * 1024);
    const { status, report, stderr } = bundleSize();
    expect(report).toMatchObject({ budget_gzip_bytes: budget.maxGzipBytes, within_budget: true });
    expect(report.gzip_bytes).toBeLessThanOrEqual(budget.maxGzipBytes);
    expect(report.raw_bytes).toBeGreaterThan(report.gzip_bytes);
    // The browser console (dist/ui) is reported beside it, against a budget of its own.
    const ui = JSON.parse(readFileSync(join(root, "bundle-budget-ui.json"), "utf8")) as { maxGzipBytes: number };
    expect(report.console).toMatchObject({ budget_gzip_bytes: ui.maxGzipBytes, within_budget: true });
    expect(report.console.files).toContain("index.html");
    expect(report.console.gzip_bytes).toBeGreaterThan(0);
    expect(report.console.raw_bytes).toBeGreaterThan(report.console.gzip_bytes);
    expect(status, stderr).toBe(0);
  });

  it("fails above its budget, and above the console's", () => {
    const budget = join(work, "tight-budget.json");
    writeFileSync(budget, JSON.stringify({ config: join(root, "wrangler.toml"), maxGzipBytes: 100_000 }));
    const uiBudget = join(work, "tight-ui-budget.json");
    writeFileSync(uiBudget, JSON.stringify({ maxGzipBytes: 1_000 }));
    const { status, report, stderr } = bundleSize("--budget", budget, "--ui-budget", uiBudget);
    expect(report.within_budget).toBe(false);
    expect(stderr).toMatch(/over the budget of 100000/);
    expect(report.console.within_budget).toBe(false);
    expect(stderr).toMatch(/the console's \d+ gzip bytes is over its budget of 1000/);
    expect(status).toBe(1);
  });

  it("a Worker on one model provider and R2 bundles that provider's package only, and no S3 code is in its module graph", () => {
    const metafile = join(work, "one-provider.meta.json");
    const { status } = bundleSize(
      "--config",
      "test/workers/fixtures/one-provider-wrangler.toml",
      "--metafile",
      metafile,
    );
    expect(status).toBe(0);
    const meta = JSON.parse(readFileSync(metafile, "utf8")) as {
      inputs: Record<string, unknown>;
      outputs: Record<string, { inputs: Record<string, unknown> }>;
    };
    const providers = (files: string[]) =>
      [...new Set(files.flatMap((f) => f.match(/node_modules\/@ai-sdk\/([a-z-]+)\/dist\//)?.[1] ?? []))]
        .filter((p) => p !== "provider" && p !== "provider-utils")
        .sort();
    // Every module esbuild read, kept or not: the graph. Then what reached the upload.
    const graph = Object.keys(meta.inputs);
    const bundled = Object.values(meta.outputs).flatMap((o) => Object.keys(o.inputs));
    expect(providers(bundled)).toEqual(["openai"]);
    expect(graph.filter((f) => f.includes("@aws-sdk/") || f.endsWith("s3-storage.ts"))).toEqual([]);
  });
});
