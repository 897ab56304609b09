import { RUN_INPUT_FIELDS, recordBytes, recordContent, type RunMedia } from "../agent/media.js";
import type { RunOutput } from "../agent/run-output.js";
import { MESSAGE_MEDIA_FIELDS, type MediaKind, type MediaRecord, type Message } from "../models/message.js";
import type { Model } from "../models/model.js";
import type { MediaReference, MediaStorage } from "./media-storage.js";

/*
 * How runs use media storage. Before a run is persisted, every media record that carries its
 * bytes inline (`content`) is uploaded and keeps a `media_reference` instead (agno 3.0's
 * layout), so rows stay small. When a model needs the media, the bytes are read back into a
 * copy of the messages it is sent; the run's own messages keep the references.
 */

type Fields = Readonly<Record<MediaKind, string>>;
/** One upload per record object: input lists and the user message share their records. */
type Memo = Map<MediaRecord, Promise<MediaRecord>>;

/** The record with its inline bytes moved to storage; records without inline bytes are returned as they are. */
function offloadRecord(kind: MediaKind, record: MediaRecord, storage: MediaStorage, memo: Memo): Promise<MediaRecord> {
  let done = memo.get(record);
  if (!done) {
    done = (async () => {
      const bytes = recordBytes(kind, record);
      if (!bytes) return record;
      const { content: _inline, ...rest } = record;
      const mimeType = record.mime_type ?? "application/octet-stream";
      const ref = await storage.store(bytes, {
        mimeType,
        mediaType: kind,
        filename: record.filename,
        mediaId: record.id,
      });
      return { ...rest, media_reference: ref };
    })();
    memo.set(record, done);
  }
  return done;
}

/** Replaces, in place, the media lists `fields` names on `holder` with offloaded copies. */
async function offloadFields(
  holder: Record<string, unknown>,
  fields: Fields,
  storage: MediaStorage,
  memo: Memo,
): Promise<void> {
  await Promise.all(
    (Object.entries(fields) as Array<[MediaKind, string]>).map(async ([kind, field]) => {
      const list = holder[field];
      if (!Array.isArray(list)) return;
      holder[field] = await Promise.all(
        list.map((item: unknown) => (isRecord(item) ? offloadRecord(kind, item, storage, memo) : item)),
      );
    }),
  );
}

/** A run's input media with references instead of bytes (the same object, changed in place). */
export async function offloadRunMedia(
  media: RunMedia,
  storage: MediaStorage,
  memo: Memo = new Map(),
): Promise<RunMedia> {
  await offloadFields(media as Record<string, unknown>, RUN_INPUT_FIELDS, storage, memo);
  return media;
}

/** Messages (history written before media storage was configured, say) with references instead of bytes, in place. */
export async function offloadMessages(
  messages: Message[],
  storage: MediaStorage,
  memo: Memo = new Map(),
): Promise<void> {
  await Promise.all(messages.map((m) => offloadFields(m, MESSAGE_MEDIA_FIELDS, storage, memo)));
}

/**
 * Everything a finished run carries: its input, its messages, and agno's output lists
 * (`images`, `audio`, `videos`, `files` on the RunOutput, e.g. attached by a post hook).
 */
export async function offloadOutputMedia(output: RunOutput, storage: MediaStorage): Promise<void> {
  const memo: Memo = new Map();
  await Promise.all([
    offloadFields(output as unknown as Record<string, unknown>, MESSAGE_MEDIA_FIELDS, storage, memo),
    offloadRunMedia(output.input, storage, memo),
    offloadMessages(output.messages, storage, memo),
  ]);
}

/** The record's reference, when it has a usable one (where it is; the rest is optional in rows agno wrote). */
export function referenceOf(record: MediaRecord): MediaReference | undefined {
  const ref = record.media_reference;
  if (!isRecord(ref) || typeof ref.storage_key !== "string" || typeof ref.storage_backend !== "string")
    return undefined;
  return ref as unknown as MediaReference;
}

/**
 * The model, sent the bytes of referenced media: each request gets copies of the messages with
 * `content` read back from storage. A record is read once per run (the run's loop sends the
 * same message objects on every turn).
 */
export function modelWithStoredMedia(model: Model, storage: MediaStorage): Model {
  const read = new WeakMap<MediaRecord, Promise<MediaRecord>>();
  const withBytes = (kind: MediaKind, record: MediaRecord): MediaRecord | Promise<MediaRecord> => {
    const ref = typeof record.content === "string" ? undefined : referenceOf(record);
    if (!ref) return record;
    let done = read.get(record);
    if (!done) {
      done = storage
        .read(ref)
        .then((bytes) => ({ ...record, content: recordContent(kind, record.mime_type ?? ref.mime_type, bytes) }));
      read.set(record, done);
    }
    return done;
  };
  const messageWithBytes = async (m: Message): Promise<Message> => {
    const fields = Object.entries(MESSAGE_MEDIA_FIELDS) as Array<[MediaKind, keyof Message]>;
    if (!fields.some(([, field]) => Array.isArray(m[field]))) return m;
    const copy: Message = { ...m };
    for (const [kind, field] of fields) {
      const list = m[field];
      if (Array.isArray(list))
        copy[field] = await Promise.all(list.map((item: unknown) => (isRecord(item) ? withBytes(kind, item) : item)));
    }
    return copy;
  };
  return {
    id: model.id,
    provider: model.provider,
    ...(model.checkMedia ? { checkMedia: (media) => model.checkMedia!(media) } : {}),
    async *stream(request) {
      yield* model.stream({ ...request, messages: await Promise.all(request.messages.map(messageWithBytes)) });
    },
  };
}

function isRecord(value: unknown): value is MediaRecord {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
