import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { WORKERS_PLATFORMS } from "./test/support/workers-platforms.js";

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
                // The chat interfaces are on, as in a deployment with their secrets, so their webhooks
                // join the sweep and the conformance suite, and their answers go to the fake platforms
                // the global setup started, which tests read back (test/support/recorded-calls.ts).
                SLACK_BOT_TOKEN: WORKERS_PLATFORMS.slack.botToken,
                SLACK_SIGNING_SECRET: WORKERS_PLATFORMS.slack.signingSecret,
                SLACK_API_URL: inject("slackApiUrl"),
                TELEGRAM_BOT_TOKEN: WORKERS_PLATFORMS.telegram.token,
                TELEGRAM_WEBHOOK_SECRET: WORKERS_PLATFORMS.telegram.webhookSecret,
                TELEGRAM_API_URL: inject("telegramApiUrl"),
                WHATSAPP_ACCESS_TOKEN: WORKERS_PLATFORMS.whatsapp.accessToken,
                WHATSAPP_PHONE_NUMBER_ID: WORKERS_PLATFORMS.whatsapp.phoneNumberId,
                WHATSAPP_VERIFY_TOKEN: WORKERS_PLATFORMS.whatsapp.verifyToken,
                WHATSAPP_APP_SECRET: WORKERS_PLATFORMS.whatsapp.appSecret,
                WHATSAPP_API_URL: inject("whatsappApiUrl"),
                // SuperGrok sign-in is on, so /models/xai/login joins the sweep, conformance and isolation.
                XAI_TOKEN_ENCRYPTION_KEY: WORKERS_PLATFORMS.xai.encryptionKey,
                XAI_OAUTH_ISSUER: inject("xaiIssuer"),
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
