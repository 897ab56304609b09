import type { Env } from "../../src/index.js";

declare global {
  namespace Cloudflare {
    interface Env extends Required<Pick<import("../../src/index.js").Env, "DATABASE_URL" | "DB_WS_PROXY" | "OS_SECURITY_KEY" | "MODEL" | "JOB_QUEUE">> {
      /** the scripted model server (test/support/model-server.ts), reached over HTTP */
      MODEL_SERVER_URL: string;
    }
  }
}

export type { Env };
