import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
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
                // The suite runs with auth on, as a deployment does; requests carry this key.
                OS_SECURITY_KEY: "workers-test-key",
              },
            },
          })),
        ],
        test: {
          name: "workers",
          include: ["test/workers/**/*.test.ts"],
          testTimeout: 60_000,
        },
      },
    ],
  },
});
