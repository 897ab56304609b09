import { SUPPORTED_MIME_TYPES, type MediaKind } from "../../agent/media.js";
import type { TelegramFileRef } from "./telegram-target.js";
import type { TelegramMessage } from "./telegram-update.js";

/** The files a message brings that a run can take, and the names of those it cannot. */
export function filesOf(message: TelegramMessage, maxBytes: number): { files: TelegramFileRef[]; skipped: string[] } {
  const candidates: Array<{ file_id: string; file_size?: number; kind: MediaKind; mime: string; name?: string }> = [];
  // Telegram sends a photo in several sizes, the largest last.
  const photo = message.photo?.at(-1);
  if (photo) candidates.push({ ...photo, kind: "image", mime: "image/jpeg", name: "photo" });
  if (message.voice)
    candidates.push({
      ...message.voice,
      kind: "audio",
      mime: message.voice.mime_type ?? "audio/ogg",
      name: "voice message",
    });
  if (message.audio)
    candidates.push({
      ...message.audio,
      kind: "audio",
      mime: message.audio.mime_type ?? "audio/mpeg",
      name: message.audio.file_name ?? "audio",
    });
  if (message.document) {
    const mime = (message.document.mime_type ?? "application/octet-stream").toLowerCase();
    const kind: MediaKind = mime.startsWith("image/")
      ? "image"
      : mime.startsWith("audio/")
        ? "audio"
        : mime.startsWith("video/")
          ? "video"
          : "file";
    candidates.push({ ...message.document, kind, mime, name: message.document.file_name ?? "document" });
  }
  const files: TelegramFileRef[] = [];
  const skipped: string[] = [];
  for (const f of candidates) {
    const name = f.name ?? f.kind;
    if ((f.file_size ?? 0) > maxBytes) skipped.push(`${name} (larger than ${Math.floor(maxBytes / (1024 * 1024))} MB)`);
    else if (!SUPPORTED_MIME_TYPES[f.kind].has(f.mime)) skipped.push(`${name} (${f.mime} is not a type I can read)`);
    else
      files.push({
        file_id: f.file_id,
        kind: f.kind,
        mime_type: f.mime,
        ...(f.kind === "file" && f.name ? { file_name: f.name } : {}),
      });
  }
  return { files, skipped };
}
