import type { Env } from "../../src/index.js";

declare global {
  namespace Cloudflare {
    interface Env extends Required<Pick<import("../../src/index.js").Env, "DATABASE_URL" | "DB_WS_PROXY" | "OS_SECURITY_KEY">> {}
  }
}

export type { Env };
