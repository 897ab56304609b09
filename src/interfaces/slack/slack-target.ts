import type { ReplyTarget } from "../reply-target.js";

/** A file the user shared: where the job fetches it (with the bot token) and what Slack says it is. */
export interface SlackTargetFile {
  url: string;
  mimetype: string;
  size?: number;
  name?: string;
}

/**
 * Where a Slack run is answered, as JSON in its job: the channel and thread, the files to fetch,
 * and, for a continue, the button message to rewrite with who decided.
 */
export interface SlackTarget extends ReplyTarget {
  channel: string;
  /** the thread the answer goes into: the message's thread, or the message itself when it started none */
  thread_ts: string;
  files?: SlackTargetFile[];
  /** the message is in an assistant thread: its "is thinking…" status is set while the run works */
  assistant?: boolean;
  /** an assistant thread's title, from the message (agno's: its first 50 characters) */
  title?: string;
  /** set by a button press: the pressed message, the requirement, the decision and who made it */
  decided?: { ts: string; requirement_id: string; confirmed: boolean; user: string; what?: string };
}

/** The target a job carries, checked: an unreadable one (hand-edited, from an older version) is refused. */
export function slackTargetOf(target: ReplyTarget): SlackTarget {
  const t = target as Partial<SlackTarget>;
  if (typeof t.channel !== "string" || typeof t.thread_ts !== "string")
    throw new Error("the reply target of this Slack run has no channel or thread");
  return target as SlackTarget;
}
