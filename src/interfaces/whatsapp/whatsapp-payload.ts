import { z } from "zod";

/**
 * The Cloud API's webhook delivery (`object: "whatsapp_business_account"`), as far as this
 * interface reads it: each `entry[].changes[].value` may carry `messages` (what users sent) and
 * `statuses` (delivery receipts of what was sent to them, which start nothing). Fields it does not
 * read pass through unchecked; those it reads are checked for type and size before anything is
 * queued, so a malformed delivery is refused whole.
 */

/** Printable, bounded ids: they become idempotency keys, run ids and database values. */
const id = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[^\u0000-\u001f\u007f]*$/, "must not contain control characters");

/** A WhatsApp id (the sender's number as digits). */
const waId = z.string().regex(/^[0-9]{5,20}$/, "must be a WhatsApp id (digits)");

/** What a user writes: WhatsApp caps a text at 4096 characters; captions are shorter still. */
const text = (max: number) =>
  z
    .string()
    .max(max)
    .regex(/^[^\u0000]*$/, "must not contain NUL");

const media = z.object({
  id,
  mime_type: z.string().max(255).optional(),
  caption: text(4096).optional(),
  filename: text(255).optional(),
  file_size: z.number().int().nonnegative().optional(),
});

const message = z.object({
  from: waId,
  id,
  timestamp: z.string().regex(/^[0-9]{1,12}$/, "must be unix seconds"),
  type: z.string().min(1).max(64),
  text: z.object({ body: text(4096) }).optional(),
  image: media.optional(),
  document: media.optional(),
  audio: media.optional(),
  video: media.optional(),
  interactive: z
    .object({
      type: z.string().max(64),
      button_reply: z.object({ id: z.string().min(1).max(256), title: text(64) }).optional(),
      list_reply: z
        .object({ id: z.string().min(1).max(256), title: text(64), description: text(128).optional() })
        .optional(),
    })
    .optional(),
});

/** Each known message type must carry its own object: a `text` message without `text` is malformed. */
const typedMessage = message.superRefine((m, ctx) => {
  const own: Record<string, unknown> = {
    text: m.text,
    image: m.image,
    document: m.document,
    audio: m.audio,
    video: m.video,
    interactive: m.interactive,
  };
  if (m.type in own && own[m.type] === undefined)
    ctx.addIssue({ code: "custom", path: [m.type], message: `required for a ${m.type} message` });
  if (m.interactive?.type === "button_reply" && !m.interactive.button_reply)
    ctx.addIssue({ code: "custom", path: ["interactive", "button_reply"], message: "required for a button_reply" });
  if (m.interactive?.type === "list_reply" && !m.interactive.list_reply)
    ctx.addIssue({ code: "custom", path: ["interactive", "list_reply"], message: "required for a list_reply" });
});

export const webhookPayload = z.object({
  object: z.string().max(64),
  entry: z
    .array(
      z.object({
        id: z.string().max(64).optional(),
        changes: z
          .array(
            z.object({
              field: z.string().max(64),
              value: z.object({
                messaging_product: z.literal("whatsapp").optional(),
                metadata: z.object({ phone_number_id: z.string().max(64) }).optional(),
                messages: z.array(typedMessage).max(100).optional(),
                statuses: z.array(z.unknown()).max(1000).optional(),
              }),
            }),
          )
          .max(100),
      }),
    )
    .max(100),
});

export type WebhookPayload = z.infer<typeof webhookPayload>;
export type WhatsAppMessage = z.infer<typeof message>;
/** A message, with the business number it was sent to (several numbers may share one app's webhook). */
export interface DeliveredMessage {
  message: WhatsAppMessage;
  phoneNumberId?: string;
}

/** Every message the delivery carries, in order. */
export function deliveredMessages(payload: WebhookPayload): DeliveredMessage[] {
  return payload.entry.flatMap((e) =>
    e.changes.flatMap((c) =>
      (c.value.messages ?? []).map((message) => ({ message, phoneNumberId: c.value.metadata?.phone_number_id })),
    ),
  );
}
