import { ValidationError } from "../../errors.js";
import type { InterfaceMessage } from "../enqueue-interface-run.js";
import { interfaceSessionId } from "../interface-session-id.js";
import type { SlackEnvelope } from "./slack-payloads.js";
import type { SlackTarget, SlackTargetFile } from "./slack-target.js";

export interface SlackMessageOptions {
  prefix: string;
  replyToMentionsOnly: boolean;
  /** the Web API's origin: files there may be fetched over plain http (a local fake); elsewhere only https */
  apiOrigin: string;
}

/** Message subtypes that are still a user writing to the bot; every other subtype is an edit, a delete, a join… */
const USER_SUBTYPES = new Set(["file_share"]);

/** Files the bot cannot fetch: deleted, beyond the workspace's plan limits, or hosted elsewhere. */
const UNREADABLE_MODES = new Set(["tombstone", "hidden_by_limit", "external"]);

/**
 * The run a Slack event asks for, or null when the bot should not answer it (agno's
 * should_process and should_respond): bot messages and the bot's own, edits, deletes and other
 * lifecycle subtypes, and, with `replyToMentionsOnly`, channel messages that do not mention it.
 * Its identity is the message (workspace, channel, ts), not the event id, which Slack changes on
 * a redelivery; its session is the thread, per user.
 */
export function slackMessageOf(
  envelope: Extract<SlackEnvelope, { type: "event_callback" }>,
  opts: SlackMessageOptions,
): InterfaceMessage | null {
  const ev = envelope.event;
  if (ev.type !== "app_mention" && ev.type !== "message") return null;
  if (ev.subtype !== undefined && !USER_SUBTYPES.has(ev.subtype)) return null;
  if (ev.bot_id) return null;
  const botUser = envelope.authorizations?.[0]?.user_id;
  if (botUser && ev.user === botUser) return null;
  const isDm = ev.channel_type === "im";
  // Slack sends both an app_mention and a message for a mention: answer one of them.
  if (opts.replyToMentionsOnly && ev.type === "message" && !isDm) return null;
  if (!opts.replyToMentionsOnly && ev.type === "app_mention" && !isDm) return null;
  if (!ev.user) throw new ValidationError("body event.user: is required on a message", "event.user");
  if (!ev.channel) throw new ValidationError("body event.channel: is required on a message", "event.channel");
  if (!ev.ts) throw new ValidationError("body event.ts: is required on a message", "event.ts");
  const text = stripMention(ev.text ?? "", botUser);
  const files: SlackTargetFile[] = [];
  for (const [i, f] of (ev.files ?? []).entries()) {
    if (!f.url_private_download || (f.mode !== undefined && UNREADABLE_MODES.has(f.mode))) continue;
    if (!fetchable(f.url_private_download, opts.apiOrigin))
      throw new ValidationError(
        `body event.files.${i}.url_private_download: must be an https URL`,
        `event.files.${i}.url_private_download`,
      );
    files.push({
      url: f.url_private_download,
      mimetype: f.mimetype ?? "application/octet-stream",
      ...(f.size !== undefined ? { size: f.size } : {}),
      ...(f.name ? { name: f.name } : {}),
    });
  }
  if (!text.trim() && files.length === 0) return null;
  const thread = ev.thread_ts ?? ev.ts;
  const team = envelope.team_id ?? ev.team ?? "-";
  const reply: SlackTarget = {
    interface: opts.prefix,
    channel: ev.channel,
    thread_ts: thread,
    ...(files.length ? { files } : {}),
    ...(ev.assistant_thread ? { assistant: true, title: text.slice(0, 50).trim() || "New conversation" } : {}),
  };
  return {
    message: text,
    sessionId: interfaceSessionId("slack", `${ev.channel}:${thread}`, ev.user),
    userId: ev.user,
    eventKey: `${team}:${ev.channel}:${ev.ts}`,
    reply,
    metadata: { slack: { team_id: team, channel: ev.channel, thread_ts: thread, ts: ev.ts } },
  };
}

/** The text without the bot's own `<@U…>` mention: the model need not see its id. */
function stripMention(text: string, botUser: string | undefined): string {
  if (!botUser) return text.trim();
  return text
    .split(`<@${botUser}>`)
    .join(" ")
    .replace(/[ \t]{2,}/g, " ")
    .trim();
}

function fetchable(url: string, apiOrigin: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === "https:" || u.origin === apiOrigin;
  } catch {
    return false;
  }
}
