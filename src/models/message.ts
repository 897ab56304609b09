import { nowSeconds } from "../time.js";

/**
 * Messages in agno's dict shape (snake_case), the form they are stored in a run's `messages`
 * and sent over HTTP. Provider formats are produced from these at the edge of each adapter.
 */
export type Role = "system" | "user" | "assistant" | "tool";

export interface ToolCallRecord {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export type MediaKind = "image" | "audio" | "video" | "file";

/**
 * A media item in agno's dict shape (`agno.media` Image/Audio/Video/File `to_dict()`), as a run
 * stores it in its `input` and on its user message: the bytes in `content`, or a `url`.
 */
export interface MediaRecord {
  id: string;
  url?: string;
  mime_type?: string;
  /** e.g. `png`, `mp3`, `pdf`: the filename's extension, else the mime subtype (as agno's upload routes) */
  format?: string;
  /** base64 of the bytes; for `text/*` files the UTF-8 text itself, as agno's File stores it */
  content?: string;
  /** files only (agno's Image, Audio and Video carry no name) */
  filename?: string;
  /** files only: the size in bytes */
  size?: number;
  [key: string]: unknown;
}

/** Where a message carries each kind of media: agno's Message fields (`audio`, not `audios`). */
export const MESSAGE_MEDIA_FIELDS = {
  image: "images",
  audio: "audio",
  video: "videos",
  file: "files",
} as const satisfies Record<MediaKind, string>;

export interface Message {
  role: Role;
  content?: string | null;
  /** media sent with a user message */
  images?: MediaRecord[];
  audio?: MediaRecord[];
  videos?: MediaRecord[];
  files?: MediaRecord[];
  /** assistant messages that call tools */
  tool_calls?: ToolCallRecord[];
  /** tool messages: which call they answer */
  tool_call_id?: string;
  tool_name?: string;
  tool_args?: Record<string, unknown>;
  tool_call_error?: boolean;
  reasoning_content?: string;
  /** true when the message was sent as history, not produced in this run */
  from_history?: boolean;
  created_at: number;
  [key: string]: unknown;
}

export function message(role: Role, content: string | null, extra: Partial<Message> = {}): Message {
  return { role, content, ...extra, created_at: extra.created_at ?? nowSeconds() };
}

/** The media a message carries, images first, then audio, video and files (agno's order). */
export function mediaOf(m: Message): Array<{ kind: MediaKind; media: MediaRecord }> {
  return (Object.entries(MESSAGE_MEDIA_FIELDS) as Array<[MediaKind, keyof Message]>).flatMap(([kind, field]) => {
    const items = m[field];
    if (!Array.isArray(items)) return [];
    return items
      .filter((media): media is MediaRecord => typeof media === "object" && media !== null)
      .map((media) => ({ kind, media }));
  });
}
