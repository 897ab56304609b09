import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { freePort } from "../../src/cli/local/pglite-server.js";
import { scriptModel } from "../support/model-script.js";

/**
 * The path a user takes, end to end: agno-edge packed as npm would publish it, installed into a
 * copy of examples/weather-desk (its own package.json, wrangler.toml and agent with a tool),
 * type-checked against the installed declarations, built as `wrangler deploy` would build it within
 * the bundle budget, then served by the project's own `npm run dev` (the packaged `agno-edge dev`)
 * on the embedded Postgres, and its agent run over SSE with a scripted model.
 */
const root = resolve(import.meta.dirname, "../..");
const work = mkdtempSync(join(tmpdir(), "agno-example-"));
const app = join(work, "weather-desk");
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The environment of a command run in the user's project: none of this repository's npm run settings. */
function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith("npm_")));
  return { ...env, NO_COLOR: "1", WRANGLER_SEND_METRICS: "false", ...extra };
}

function run(command: string, args: string[], cwd: string) {
  const result = spawnSync(command, args, { cwd, env: userEnv(), encoding: "utf8" });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** The processes of a process group still alive, with their command lines. */
function groupMembers(pgid: number): string[] {
  return execFileSync("ps", ["-eo", "pid=,pgid=,args="], { encoding: "utf8" })
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => Number(f[1]) === pgid)
    .map((f) => `${f[0]} ${f.slice(2).join(" ")}`);
}

describe("a user project on the packed agno-edge (examples/weather-desk)", { timeout: 600_000 }, () => {
  beforeAll(() => {
    // npm pack runs the package's prepack script: `npm run build` into dist/.
    const packed = run("npm", ["pack", "--pack-destination", work, "--silent"], root);
    expect(packed.status, packed.output).toBe(0);
    const tarball = join(
      work,
      readdirSync(work).find((f) => f.endsWith(".tgz"))!,
    );
    cpSync(join(root, "examples/weather-desk"), app, {
      recursive: true,
      filter: (src) => !/\/(node_modules|\.data|\.wrangler)(\/|$)/.test(src),
    });
    const manifest = JSON.parse(readFileSync(join(app, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    expect(manifest.dependencies["agno-edge"]).toMatch(/^file:/);
    manifest.dependencies["agno-edge"] = `file:${tarball}`;
    writeFileSync(join(app, "package.json"), JSON.stringify(manifest, null, 2));
    const installed = run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], app);
    expect(installed.status, installed.output).toBe(0);
  }, 600_000);

  it("installs a package publint finds nothing wrong with (exports, types, files as published)", () => {
    const publint = join(root, "node_modules/publint/src/cli.js");
    const linted = run(
      process.execPath,
      [publint, "--strict", "--pack", "false", join(app, "node_modules/agno-edge")],
      app,
    );
    expect(linted.output).toContain("All good!");
    expect(linted.status).toBe(0);
  });

  it("type-checks against the installed package's declarations, which resolve (a wrong call fails)", () => {
    const tsc = join(app, "node_modules/typescript/bin/tsc");
    const clean = run(process.execPath, [tsc, "--noEmit", "-p", app], app);
    expect(clean.output).toBe("");
    expect(clean.status).toBe(0);
    // agno-edge's own declarations hold no error (third-party ones are the user's skipLibCheck's business).
    const libs = run(process.execPath, [tsc, "--noEmit", "-p", app, "--skipLibCheck", "false"], app);
    expect(libs.output.split("\n").filter((l) => l.includes("node_modules/agno-edge/"))).toEqual([]);
    // Types that resolved to `any` would accept anything: a wrong option must not type-check.
    writeFileSync(
      join(app, "src/wrong.ts"),
      'import { defineAgentOS } from "agno-edge/workers";\nexport const os = defineAgentOS({ agents: 42 });\n',
    );
    try {
      const wrong = run(process.execPath, [tsc, "--noEmit", "-p", app], app);
      expect(wrong.status).not.toBe(0);
      expect(wrong.output).toMatch(/src\/wrong\.ts\(2,\d+\): error TS2322/);
    } finally {
      rmSync(join(app, "src/wrong.ts"));
    }
  });

  it("builds with wrangler deploy --dry-run within the bundle budget, the QuickJS WebAssembly as a module of its own", () => {
    const measured = run(
      process.execPath,
      [
        join(root, "node_modules/tsx/dist/cli.mjs"),
        "scripts/bundle-size.ts",
        "--config",
        join(app, "wrangler.toml"),
        "--budget",
        join(root, "bundle-budget-core.json"),
      ],
      root,
    );
    const report = JSON.parse(
      measured.output
        .trim()
        .split("\n")
        .find((l) => l.startsWith("{")) ?? "{}",
    ) as {
      within_budget?: boolean;
      modules?: string[];
      largest_raw_bytes?: Record<string, number>;
    };
    expect(measured.status, measured.output).toBe(0);
    expect(report.within_budget).toBe(true);
    expect(report.modules).toEqual([expect.stringMatching(/quickjs\.wasm$/), "worker.js"]);
    // One provider registered, one provider's package bundled.
    expect(Object.keys(report.largest_raw_bytes ?? {})).not.toContain("@ai-sdk/anthropic");
  });

  it("serves its own agent with its own npm run dev, runs it over SSE with a tool call, serves the packaged console, and stops everything it started", async () => {
    const script = await scriptModel(inject("modelServerUrl"), [
      { toolCalls: [{ name: "get_forecast", arguments: { city: "Lyon" } }] },
      { text: "Sunny in Lyon tomorrow." },
    ]);
    const port = await freePort();
    let output = "";
    const dev: ChildProcess = spawn("npm", ["run", "dev"], {
      cwd: app,
      env: userEnv({
        PORT: String(port),
        MODEL: "openai:gpt-test",
        OPENAI_BASE_URL: script.baseURL,
        OPENAI_API_KEY: "sk-example",
      }),
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    dev.stdout!.on("data", (d) => (output += d));
    dev.stderr!.on("data", (d) => (output += d));
    const exited = new Promise<number | null>((r) => dev.once("exit", (code) => r(code)));
    const url = `http://127.0.0.1:${port}`;
    try {
      for (let answered = false; !answered;) {
        if (dev.exitCode !== null) throw new Error(`npm run dev exited early:\n${output}`);
        answered = await fetch(`${url}/info`).then(
          (r) => r.ok,
          () => false,
        );
        if (!answered) await new Promise((r) => setTimeout(r, 250));
      }
      expect(output).toContain("agno-edge dev");
      expect(output).toMatch(/embedded Postgres \(PGlite\)/);
      expect(await (await fetch(`${url}/info`)).json()).toMatchObject({ name: "weather desk" });

      const sse = await (
        await fetch(`${url}/agents/weather/runs`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ message: "Weather in Lyon tomorrow?" }),
        })
      ).text();
      expect(sse).toMatch(/event: ToolCallCompleted/);
      expect(sse).toContain("sunny in Lyon, 24 degrees");
      expect(sse).toMatch(/event: RunCompleted/);
      expect(sse).toContain("Sunny in Lyon tomorrow.");
      // The packaged console, served from node_modules/agno-edge/dist/ui by its [assets]: the page
      // and the script it names.
      const page = await fetch(`${url}/ui`);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-security-policy")).toContain("default-src 'self'");
      const html = await page.text();
      const scriptPath = /<script[^>]+src="([^"]+\.js)"/.exec(html)?.[1];
      expect(scriptPath, html).toBeDefined();
      const js = await fetch(new URL(scriptPath!, `${url}/ui/`));
      expect(js.status).toBe(200);
      expect(js.headers.get("content-type")).toMatch(/javascript/);

      const requests = await script.requests();
      expect(requests).toHaveLength(2);
      expect(requests[0]!.headers.authorization).toBe("Bearer sk-example");
      const sessions = (await (await fetch(`${url}/sessions`)).json()) as { data: unknown[] };
      expect(sessions.data).toEqual([expect.objectContaining({ agent_id: "weather" })]);

      // What a process manager does: SIGTERM to the dev command, which stops wrangler dev (and its
      // workerd) and the embedded Postgres before it exits.
      const command = groupMembers(dev.pid!).find((p) => p.includes("node_modules/.bin/agno-edge dev"));
      expect(command, groupMembers(dev.pid!).join("\n")).toBeDefined();
      process.kill(Number(command!.split(" ")[0]), "SIGTERM");
      expect(await exited).toBe(0);
      // npm exits once the command has; the group's last members may still be on their way out.
      for (let i = 0; i < 20 && groupMembers(dev.pid!).length > 0; i++) await new Promise((r) => setTimeout(r, 250));
      expect(groupMembers(dev.pid!)).toEqual([]);
    } finally {
      try {
        process.kill(-dev.pid!, "SIGKILL");
      } catch {
        // the group is gone
      }
    }
  });
});
