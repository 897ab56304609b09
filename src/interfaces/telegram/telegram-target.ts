import type { MediaKind } from "../../agent/media.js";
import type { ReplyTarget } from "../reply-target.js";

/** A file the user sent: fetched from Telegram by the job, not by the webhook. */
export interface TelegramFileRef {
  file_id: string;
  kind: MediaKind;
  mime_type: string;
  file_name?: string;
}

/** Where a Telegram run is answered, and what the job fetches for it. JSON only: it travels in the job. */
export interface TelegramTarget extends ReplyTarget {
  chat_id: number;
  /** the forum topic the message was in: answers stay in it */
  thread_id?: number;
  /** the message the answer replies to */
  reply_to?: number;
  files?: TelegramFileRef[];
  /** names of files left out (too large, a type runs cannot take), told to the user */
  skipped?: string[];
  /** the bot's message whose button was pressed: its buttons are removed once the press is answered */
  pressed?: number;
}
