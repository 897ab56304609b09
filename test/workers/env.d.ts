import type { Env } from "../../src/index.js";

declare global {
  namespace Cloudflare {
    interface Env extends Required<
      Pick<
        import("../../src/index.js").Env,
        | "DATABASE_URL"
        | "DB_WS_PROXY"
        | "OS_SECURITY_KEY"
        | "MODEL"
        | "JOB_QUEUE"
        | "STORAGE"
        | "AGNO_STORAGE_BUCKET"
        // the chat interfaces' secrets (vitest.config.ts sets them all)
        | "SLACK_SIGNING_SECRET"
        | "SLACK_API_URL"
        | "TELEGRAM_API_URL"
        | "WHATSAPP_API_URL"
        | "TELEGRAM_WEBHOOK_SECRET"
        | "WHATSAPP_VERIFY_TOKEN"
        | "WHATSAPP_PHONE_NUMBER_ID"
        | "WHATSAPP_APP_SECRET"
      >
    > {
      /** the scripted model server (test/support/model-server.ts), reached over HTTP */
      MODEL_SERVER_URL: string;
    }
  }
}

// Values the global setup provides, for `inject()` in Workers tests (global-setup.ts declares
// them too, but this typecheck does not include that Node file).
declare module "vitest" {
  export interface ProvidedContext {
    s3Url: string;
    /** the real PostgreSQL server from TEST_DATABASE_URL, or "" */
    realPgUrl: string;
    /** the MCP test server (test/support/mcp-test-server.ts) */
    mcpServerUrl: string;
  }
}

export type { Env };
