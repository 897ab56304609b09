import { z } from "zod";

const id = z.string().min(1).max(255);

/** A file a user shared with a message, as Slack describes it in the event. */
export const slackFileSchema = z.object({
  id: id.optional(),
  name: z.string().max(1024).optional(),
  mimetype: z.string().max(255).optional(),
  size: z.number().int().nonnegative().optional(),
  url_private_download: z.string().max(4096).optional(),
  // Slack sends `mode: "tombstone"` or "hidden_by_limit" for files the bot cannot read.
  mode: z.string().max(64).optional(),
});

/** The inner event of an `event_callback`: the fields the interface reads (Slack sends many more). */
export const slackEventSchema = z.object({
  type: z.string().min(1).max(255),
  subtype: z.string().max(255).optional(),
  channel: id.optional(),
  channel_type: z.string().max(64).optional(),
  user: id.optional(),
  bot_id: id.optional(),
  text: z.string().max(200_000).optional(),
  ts: z
    .string()
    .regex(/^[0-9]{1,12}\.[0-9]{1,9}$/, "must be a Slack ts")
    .optional(),
  thread_ts: z
    .string()
    .regex(/^[0-9]{1,12}\.[0-9]{1,9}$/, "must be a Slack ts")
    .optional(),
  client_msg_id: z.string().max(255).optional(),
  team: z.string().max(255).optional(),
  files: z.array(slackFileSchema).max(100).optional(),
  assistant_thread: z.record(z.string(), z.unknown()).optional(),
});

/** What Slack POSTs to the events URL: the URL check once, event callbacks after, and a rate-limit notice. */
export const slackEnvelopeSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("url_verification"), challenge: z.string().min(1).max(1024) }),
  z.object({
    type: z.literal("event_callback"),
    team_id: id.optional(),
    api_app_id: z.string().max(255).optional(),
    event_id: z.string().max(255).optional(),
    event: slackEventSchema,
    authorizations: z
      .array(z.object({ user_id: z.string().max(255).optional() }))
      .max(100)
      .optional(),
  }),
  z.object({ type: z.literal("app_rate_limited") }),
]);

export type SlackEnvelope = z.infer<typeof slackEnvelopeSchema>;
export type SlackEvent = z.infer<typeof slackEventSchema>;
export type SlackFile = z.infer<typeof slackFileSchema>;

/** A button press (`block_actions`), the one interaction the interface acts on. */
export const slackBlockActionsSchema = z.object({
  type: z.literal("block_actions"),
  user: z.object({ id }),
  team: z.object({ id }).nullable().optional(),
  trigger_id: z.string().max(255).optional(),
  channel: z.object({ id }).optional(),
  container: z
    .object({ message_ts: z.string().max(64).optional(), thread_ts: z.string().max(64).optional() })
    .optional(),
  message: z.object({ ts: z.string().max(64), thread_ts: z.string().max(64).optional() }).optional(),
  actions: z
    .array(
      z.object({
        action_id: z.string().max(255),
        value: z.string().max(2000).optional(),
        action_ts: z.string().max(64).optional(),
      }),
    )
    .min(1)
    .max(25),
});

export type SlackBlockActions = z.infer<typeof slackBlockActionsSchema>;
