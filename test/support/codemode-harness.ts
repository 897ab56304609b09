import { fileURLToPath } from "node:url";
import { startInProcessWorker } from "../../src/cli/local/in-process-worker.js";
import { freePort } from "../../src/cli/local/pglite-server.js";

const configs = {
  loader: fileURLToPath(new URL("../workers/fixtures/codemode-wrangler.toml", import.meta.url)),
  object: fileURLToPath(new URL("../workers/fixtures/codemode-in-object-wrangler.toml", import.meta.url)),
  "loader-build-unbound": fileURLToPath(
    new URL("../workers/fixtures/codemode-loader-build-wrangler.toml", import.meta.url),
  ),
};

/**
 * The CodeMode harness Worker (test/workers/fixtures) in a local workerd started by wrangler, with
 * its Durable Object storage persisted under `persistTo`: starting it again on the same directory
 * is what a redeploy does to the objects (new code and isolates, the same storage). `sandbox`
 * "object" starts it without the Worker Loader binding; "loader-build-unbound" builds it for the
 * loader only (AGNO_CODEMODE_SANDBOX "loader") and starts it without the binding.
 */
export async function startCodeModeHarness(opts: { persistTo: string; build: string; sandbox?: keyof typeof configs }) {
  const port = await freePort();
  const worker = await startInProcessWorker({
    configPath: configs[opts.sandbox ?? "loader"],
    port,
    vars: { BUILD: opts.build },
    persistTo: opts.persistTo,
    testScheduled: false,
    logLevel: "warn",
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    /** runs `code` as the session's next cell */
    cell: async (session: string, code: string) => {
      const res = await fetch(`${url}/cell?session=${encodeURIComponent(session)}`, { method: "POST", body: code });
      return (await res.json()) as { build: string | null; result?: unknown; error?: string; logs?: string };
    },
    /** where the session's cells run, and whether `probe` is reachable from there */
    isolation: async (session: string, probe: string) =>
      (
        await fetch(`${url}/isolation?session=${encodeURIComponent(session)}&probe=${encodeURIComponent(probe)}`)
      ).json(),
    stop: worker.stop,
  };
}
