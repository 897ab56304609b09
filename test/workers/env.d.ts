import type { Env } from "../../src/index.js";

declare global {
  namespace Cloudflare {
    interface Env extends Required<
      Pick<
        import("../../src/index.js").Env,
        "DATABASE_URL" | "DB_WS_PROXY" | "OS_SECURITY_KEY" | "MODEL" | "JOB_QUEUE" | "STORAGE" | "AGNO_STORAGE_BUCKET"
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
  }
}

export type { Env };
