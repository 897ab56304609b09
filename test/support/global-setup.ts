import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { buildSandbox } from "../../scripts/build-sandbox.js";
import { buildUi } from "../../scripts/build-ui.js";
import { startEmbeddedPostgres } from "../../src/cli/local/pglite-server.js";
import { startWsProxy } from "../../src/cli/local/ws-proxy.js";
import { startMcpTestServer } from "./mcp-test-server.js";
import { startModelServer } from "./model-server.js";
import { startS3Server } from "./s3-server.js";
import { FakeSlack } from "./fake-slack.js";
import { FakeTelegram } from "./fake-telegram.js";
import { FakeWhatsApp } from "./fake-whatsapp.js";
import { startFakeXaiOAuth } from "./fake-xai-oauth.js";
import { WORKERS_PLATFORMS } from "./workers-platforms.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** the embedded Postgres (PGlite over the wire protocol), always present */
    pgliteUrl: string;
    /** the real PostgreSQL server from TEST_DATABASE_URL, or "" when none is configured */
    realPgUrl: string;
    /** `127.0.0.1:<port>` of the WebSocket-to-TCP proxy the Neon driver goes through */
    wsProxy: string;
    /** `http://127.0.0.1:<port>` of the scripted model server (see model-script.ts) */
    modelServerUrl: string;
    /** `http://127.0.0.1:<port>` of the S3 API server (s3-server.ts; bucket and keys in s3-target.ts) */
    s3Url: string;
    /** the fake platforms' API bases (SLACK_API_URL, TELEGRAM_API_URL, WHATSAPP_API_URL) for the Workers pool */
    slackApiUrl: string;
    telegramApiUrl: string;
    whatsappApiUrl: string;
    /** `http://127.0.0.1:<port>` of the MCP test server (mcp-test-server.ts: `/mcp`, and `/sse` for the older transport) */
    mcpServerUrl: string;
    /** the fake xAI OAuth server (fake-xai-oauth.ts) the Worker's SuperGrok sign-in talks to (XAI_OAUTH_ISSUER) */
    xaiIssuer: string;
    /** an embedded Postgres data folder as a first start leaves it, before migrations; startDev copies it (dev-server.ts) */
    pgliteTemplate: string;
  }
}

/**
 * Builds the CodeMode sandbox bundle and the browser console (dist/ui), then starts the services the suite talks to: the embedded
 * Postgres, the WebSocket proxy in front of it (and of TEST_DATABASE_URL's server when set), the
 * scripted model server, the S3 server and the fake chat platforms the Worker's interfaces post
 * to, and hands their addresses to the tests.
 */
export default async function setup(project: TestProject) {
  // A new embedded Postgres folder costs PGlite's initdb, the slowest part of a dev start: made once
  // here, beside the rest of the setup, and copied by the dev starts that begin on a new folder.
  const template = mkdtempSync(join(tmpdir(), "agno-pglite-template-"));
  const templateMade = startEmbeddedPostgres({ dataDir: join(template, "pglite") }).then((pg) => pg.stop());
  // The CodeMode sandbox bundle the Worker imports (npm test builds it already; `npx vitest` alone does not).
  await buildSandbox();
  // The console's files, which wrangler.toml's [assets] serves: wrangler refuses to start without the folder.
  await buildUi();
  const pglite = await startEmbeddedPostgres();
  const realPgUrl = process.env.TEST_DATABASE_URL ?? "";
  const allow = [`${pglite.host}:${pglite.port}`];
  if (realPgUrl) {
    const u = new URL(realPgUrl);
    allow.push(`${u.hostname}:${u.port || "5432"}`);
  } else {
    console.log(
      "[agno-edge tests] TEST_DATABASE_URL is not set: the storage suites run against the embedded Postgres only",
    );
  }
  const proxy = await startWsProxy({ allow });
  const models = await startModelServer();
  const s3 = await startS3Server();
  const { slack, telegram, whatsapp } = WORKERS_PLATFORMS;
  const slackApi = await new FakeSlack(slack.botToken).start();
  const telegramApi = await new FakeTelegram({ token: telegram.token }).start();
  const whatsappApi = await new FakeWhatsApp(whatsapp.accessToken, whatsapp.phoneNumberId).start();
  const mcp = await startMcpTestServer();
  const xaiOAuth = await startFakeXaiOAuth();
  await templateMade;
  project.provide("pgliteUrl", pglite.url);
  project.provide("realPgUrl", realPgUrl);
  project.provide("wsProxy", proxy.address);
  project.provide("modelServerUrl", models.url);
  project.provide("s3Url", s3.url);
  project.provide("slackApiUrl", slackApi.apiUrl);
  project.provide("telegramApiUrl", telegramApi.url);
  project.provide("whatsappApiUrl", whatsappApi.apiUrl);
  project.provide("mcpServerUrl", mcp.url);
  project.provide("xaiIssuer", xaiOAuth.issuer);
  project.provide("pgliteTemplate", join(template, "pglite"));
  return async () => {
    await xaiOAuth.stop();
    await Promise.all([slackApi.stop(), telegramApi.close(), whatsappApi.stop()]);
    await mcp.stop();
    await s3.stop();
    await models.stop();
    await proxy.stop();
    await pglite.stop();
    rmSync(template, { recursive: true, force: true });
  };
}
