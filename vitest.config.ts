import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    globalSetup: ["./test/support/global-setup.ts"],
    projects: [
      {
        test: {
          name: "node",
          include: ["test/node/**/*.test.ts"],
          environment: "node",
          // Two files at a time: the end-to-end files mostly wait on their runtimes, and each
          // file has its own schemas, ports and model scripts. Vitest runs a project with its
          // own worker count in a group of its own: this one first, then the Workers pool.
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        plugins: [
          cloudflareTest(({ inject }) => ({
            wrangler: { configPath: "./wrangler.toml" },
            miniflare: {
              bindings: {
                DATABASE_URL: inject("pgliteUrl"),
                DB_WS_PROXY: inject("wsProxy"),
                MODEL_SERVER_URL: inject("modelServerUrl"),
                // The JobQueue Durable Object sees only these bindings (not a test's overrides),
                // so its model is the scripted server's "queue" channel, which tests re-script.
                MODEL: "openai:gpt-test",
                OPENAI_BASE_URL: `${inject("modelServerUrl")}/c/queue/v1`,
                OPENAI_API_KEY: "sk-queue",
                // Short leases, so recovery after an aborted queue object is seen within a test.
                AGNO_QUEUE_LEASE_SECONDS: "3",
                // The suite runs with auth on, as a deployment does; requests carry this key.
                OS_SECURITY_KEY: "workers-test-key",
              },
            },
          })),
        ],
        // The AWS SDK's browser build parses XML with DOMParser, which workerd lacks (aws-sdk-js-v3#7375);
        // its CommonJS build carries the SDK's own parser. wrangler.toml's [alias] does the same for wrangler.
        resolve: {
          alias: {
            "@aws-sdk/xml-builder": fileURLToPath(
              new URL("./node_modules/@aws-sdk/xml-builder/dist-cjs/index.js", import.meta.url),
            ),
          },
        },
        test: {
          name: "workers",
          include: ["test/workers/**/*.test.ts"],
          // One file at a time: the suite's JobQueue object answers from one model channel the files re-script.
          sequence: { groupOrder: 1 },
          testTimeout: 60_000,
        },
      },
    ],
  },
});
