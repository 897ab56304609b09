import { z } from "zod";

/**
 * The parts of a Telegram Update (https://core.telegram.org/bots/api#update) this interface reads.
 * Fields it does not read are let through unchecked (Telegram adds some every release); the ones
 * it reads must have Telegram's types, or the update is refused.
 */
const id = z.number().int().safe();
const fileId = z.string().min(1).max(512);

const user = z.object({
  id,
  is_bot: z.boolean().optional(),
  username: z.string().max(64).optional(),
});

const chat = z.object({
  id,
  type: z.string().max(32),
});

const file = z.object({
  file_id: fileId,
  file_size: z.number().int().nonnegative().optional(),
  mime_type: z.string().max(255).optional(),
  file_name: z.string().max(1024).optional(),
});

const entity = z.object({
  type: z.string().max(64),
  offset: z.number().int().nonnegative(),
  length: z.number().int().nonnegative(),
  user: user.optional(),
});

const keyboard = z.object({
  inline_keyboard: z
    .array(z.array(z.object({ text: z.string().optional(), callback_data: z.string().max(64).optional() })))
    .optional(),
});

/** A message the bot may have sent, as quoted by a reply to it. */
const quoted = z.object({
  message_id: id,
  from: user.optional(),
  text: z.string().max(10_000).optional(),
  reply_markup: keyboard.optional(),
});

export const telegramMessage = z.object({
  message_id: id,
  message_thread_id: id.optional(),
  is_topic_message: z.boolean().optional(),
  from: user.optional(),
  chat,
  text: z.string().max(10_000).optional(),
  caption: z.string().max(10_000).optional(),
  entities: z.array(entity).max(1000).optional(),
  caption_entities: z.array(entity).max(1000).optional(),
  photo: z.array(file).max(32).optional(),
  document: file.optional(),
  voice: file.optional(),
  audio: file.optional(),
  reply_to_message: quoted.optional(),
});
export type TelegramMessage = z.infer<typeof telegramMessage>;

export const telegramCallbackQuery = z.object({
  id: z.string().min(1).max(256),
  from: user,
  message: z
    .object({ message_id: id, message_thread_id: id.optional(), is_topic_message: z.boolean().optional(), chat })
    .optional(),
  data: z.string().max(64).optional(),
});
export type TelegramCallbackQuery = z.infer<typeof telegramCallbackQuery>;

export const telegramUpdate = z.object({
  update_id: id,
  message: telegramMessage.optional(),
  callback_query: telegramCallbackQuery.optional(),
});
export type TelegramUpdate = z.infer<typeof telegramUpdate>;
