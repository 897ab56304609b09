import type { ComponentRef } from "../agent/component.js";
import type { MediaInput } from "../agent/media.js";
import type { ReplyTarget } from "../interfaces/reply-target.js";
import type { EnqueueRunInput, JobRecord, RunJobPayload } from "./types.js";

/** What a background run of a component is asked to do, in plain values (no HTTP request needed). */
export interface RunJobRequest {
  /** the component that runs it */
  component: ComponentRef;
  message: string;
  /** the session to continue; none: a new one, named after the message */
  sessionId?: string | null;
  userId: string | null;
  /** false: nobody follows the run live, so its events are not stored */
  stream?: boolean;
  sessionState?: Record<string, unknown>;
  dependencies?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  /** already portable (base64, not bytes): the job is JSON */
  media?: MediaInput[];
  /** a chat interface's message: where the answer is posted */
  reply?: ReplyTarget;
  /** a stored component's config version (components as data): the job builds exactly that one */
  componentVersion?: number;
  maxAttempts: number;
  /** refuse when this many jobs wait or run */
  maxDepth: number;
  /** refuse when the user has this many waiting or running; unset: no per-user cap */
  maxUserDepth?: number;
  idempotencyKey?: string;
  requestHash?: string;
  /** made up by the caller when it must know it first (a request hash leaves it out); default a new UUID */
  runId?: string;
  /** the W3C trace context of whoever queued it: the job's span continues that trace */
  traceparent?: string;
}

/** The payload a run job carries, without the ids: what a request hash covers. */
export function runJobPayload(
  req: Pick<
    RunJobRequest,
    "message" | "stream" | "sessionState" | "dependencies" | "metadata" | "media" | "reply" | "componentVersion"
  >,
  runId: string,
): RunJobPayload {
  return {
    run_id: runId,
    message: req.message,
    ...(req.stream === false ? { stream: false } : {}),
    ...(req.sessionState ? { session_state: req.sessionState } : {}),
    ...(req.dependencies ? { dependencies: req.dependencies } : {}),
    ...(req.metadata ? { metadata: req.metadata } : {}),
    ...(req.media ? { media: req.media } : {}),
    ...(req.reply ? { reply: req.reply } : {}),
    ...(req.componentVersion !== undefined ? { component_version: req.componentVersion } : {}),
  };
}

/**
 * The one builder of a background run's job: the HTTP route, the scheduler and (next) chat
 * interfaces' webhooks all enqueue what this returns, so a job means the same whoever queued it.
 */
export function runJobInput(req: RunJobRequest): EnqueueRunInput {
  return {
    component_type: req.component.type,
    component_id: req.component.id,
    session_id: req.sessionId ?? crypto.randomUUID(),
    user_id: req.userId,
    // The ref rides in the payload (outside what a request hash covers), so the executor finds the component by it.
    payload: {
      ...runJobPayload(req, req.runId ?? crypto.randomUUID()),
      component: refOf(req.component),
      ...(req.traceparent ? { traceparent: req.traceparent } : {}),
    },
    max_attempts: req.maxAttempts,
    max_depth: req.maxDepth,
    ...(req.maxUserDepth === undefined ? {} : { max_user_depth: req.maxUserDepth }),
    session_name: req.message.slice(0, 100),
    // A session id made up here names no existing session: the enqueue needs no transaction.
    ...(req.sessionId ? {} : { new_session: true }),
    ...(req.idempotencyKey
      ? { idempotency_key: req.idempotencyKey, ...(req.requestHash ? { request_hash: req.requestHash } : {}) }
      : {}),
  };
}

/** The ref with only its defined fields (JSON keeps no undefined). */
function refOf({ type, id, name }: ComponentRef): ComponentRef {
  return name === undefined ? { type, id } : { type, id, name };
}

/**
 * The component a stored job runs: its payload's ref, else (a payload stored before refs) its
 * component columns, an agent when they name no type.
 */
export function jobComponent(job: Pick<JobRecord, "component_type" | "component_id" | "payload">): ComponentRef {
  const ref = job.payload.component;
  if (ref?.type && ref.id) return ref;
  // Only run jobs come here: a knowledge job is executed by its own executor (executeJob).
  return { type: (job.component_type as ComponentRef["type"]) ?? "agent", id: job.component_id };
}
