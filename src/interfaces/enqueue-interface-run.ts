import type { MediaInput } from "../agent/media.js";
import { NotConfiguredError } from "../errors.js";
import { enqueueBackgroundRun, type QueueConfig } from "../os/background.js";
import type { RequestServices } from "../os/context.js";
import type { JobRecord } from "../queue/types.js";
import type { ChatInterface } from "./chat-interface.js";
import type { ReplyTarget } from "./reply-target.js";

/** A message a platform delivered, in plain values: what becomes one background run. */
export interface InterfaceMessage {
  message: string;
  /** the agno session of the conversation (see `interfaceSessionId`) */
  sessionId: string;
  /** the platform's user, as agno's `user_id` (per-user isolation, memory and history follow it) */
  userId: string;
  /**
   * the platform's identity of the message itself (Slack's team, channel and ts; Telegram's
   * update_id; WhatsApp's message id): a redelivery, a retry or a replay with the same identity
   * enqueues nothing new
   */
  eventKey: string;
  /** already fetched files, if the webhook has them; otherwise the follower's `media()` fetches them in the job */
  media?: MediaInput[];
  /** where the answer goes */
  reply: ReplyTarget;
  metadata?: Record<string, unknown>;
  /** the webhook request's trace context, when it is traced: the run's trace continues it */
  traceparent?: string;
}

/**
 * Commits the run of a platform's message on the durable queue (the job, its PENDING run and the
 * session, in one transaction) and wakes the queue: the webhook can answer at once, and the job
 * runs the component and answers through the interface, after a crash too. A second delivery of
 * the same message returns the first job (`created: false`) and runs nothing.
 */
export async function enqueueInterfaceRun(
  services: Pick<RequestServices, "dbs" | "jobs" | "queue">,
  queue: QueueConfig | undefined,
  iface: ChatInterface,
  msg: InterfaceMessage,
): Promise<{ job: JobRecord; created: boolean }> {
  const db = services.dbs[0];
  if (!db) throw new NotConfiguredError("no database is configured: set DATABASE_URL");
  return enqueueBackgroundRun(
    services,
    queue,
    iface.component.withDb(db),
    {
      message: msg.message,
      session_id: msg.sessionId,
      // Stored events let `/resume` follow the run too, and the follower sees them as they come.
      stream: true,
      ...(msg.media?.length ? { media: msg.media } : {}),
      ...(msg.metadata ? { metadata: msg.metadata } : {}),
      reply: msg.reply,
    },
    {
      userId: msg.userId,
      idempotencyKey: `${iface.type}:${msg.eventKey}`.slice(0, 255),
      traceparent: msg.traceparent,
    },
  );
}
