/**
 * The Worker as `wrangler dev` runs it (the same wrangler.toml, workerd, local Durable Objects,
 * R2 and persistence) but started through wrangler's programmatic API with the DevTools inspector
 * off. The CLI always attaches an inspector that enables the runtime's Network domain and relays
 * every event it emits to wrangler's debug log, which costs CPU for every byte the Worker receives;
 * this mode (`AGNO_DEV_INSPECTOR=off npm run dev`) measures the runtime without that.
 */
export async function startInProcessWorker(opts: {
  configPath: string;
  port: number;
  vars: Record<string, string>;
  persistTo: string;
  testScheduled: boolean;
  /** wrangler's own output (default info: one line per request) */
  logLevel?: "warn" | "info";
}) {
  // As for the CLI: no metrics to Cloudflare and no fetch of the `Request.cf` placeholder.
  process.env.WRANGLER_SEND_METRICS = "false";
  process.env.CLOUDFLARE_CF_FETCH_ENABLED = "false";
  // Loaded only in this mode: importing wrangler's module installs its own SIGINT/SIGTERM handlers,
  // which exit the process before the dev command can stop wrangler dev and the embedded Postgres.
  const { unstable_startWorker } = await import("wrangler");
  const worker = await unstable_startWorker({
    config: opts.configPath,
    bindings: Object.fromEntries(
      Object.entries(opts.vars).map(([name, value]) => [name, { type: "plain_text" as const, value }]),
    ),
    dev: {
      server: { hostname: "127.0.0.1", port: opts.port },
      inspector: false,
      persist: opts.persistTo,
      watch: false,
      testScheduled: opts.testScheduled,
      logLevel: opts.logLevel,
    },
  });
  await worker.ready;
  return { stop: () => worker.dispose() };
}
