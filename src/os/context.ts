import type { Db } from "../db/port.js";
import type { EnqueueRunInput, JobRecord, JobStore } from "../queue/types.js";
import type { Principal } from "./auth/jwt.js";
import type { TraceScope } from "../tracing/trace-scope.js";

/**
 * What the runtime host hands the app for each request. On Workers the entry point builds
 * these per request (a Neon Pool must not outlive its request); in Node they can be long-lived.
 */
export interface RequestServices {
  /** the databases this AgentOS serves, the first being the default */
  dbs: Db[];
  /** the durable queue's storage (the default database), when the deployment has the queue */
  jobs?: JobStore;
  /**
   * the queue's dispatcher: `wake` tells it there is work; `enqueue`, when the host has it,
   * commits a background run where the dispatcher lives (the JobQueue Durable Object, over its
   * long-lived connections) and wakes it, instead of `jobs.enqueueRun` plus `wake` here
   */
  queue?: { wake(): Promise<void>; enqueue?(input: EnqueueRunInput): Promise<{ job: JobRecord; created: boolean }> };
  /** silence (ms) after which an SSE stream sends a `: ping` comment (default 15 s) */
  ssePingMs?: number;
  /** the deployment is closed because its settings are wrong: why (shown by `/health`) */
  misconfigured?: string;
}

export interface OSEnv {
  Bindings: RequestServices;
  Variables: {
    /** who is calling (set by the auth middleware on every request) */
    principal: Principal;
    /** each user sees only their own data, whatever user_id a request names */
    userIsolation: boolean;
    /** how the caller got in: auth off, the security key, a JWT, or a service-account key */
    credential: "none" | "security_key" | "jwt" | "service_account";
    /** where the runs this request starts are traced (set only when tracing is on) */
    trace?: TraceScope;
  };
}
