import { ByteSink } from "./byte-sink.js";
import { tooLarge } from "./limits.js";

/** The sink refused to grow: the limit, not a corrupt stream, ended decoding. */
class LimitReached extends Error {}

/** Resolves after pending I/O callbacks and the tasks they queue have run. */
const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * A damaged stream's output up to the damage. A stream that errors drops the output still queued,
 * and a truncated stream only errors at its end: so the data is written without closing the
 * stream, and output is read until none arrives within a turn of the event loop.
 */
async function salvage(format: "deflate" | "deflate-raw", data: Uint8Array, limit: number): Promise<Uint8Array> {
  const sink = new ByteSink(limit, data.length * 4);
  const ds = new DecompressionStream(format);
  const writer = ds.writable.getWriter();
  const reader = ds.readable.getReader();
  const written = writer.write(data as Uint8Array<ArrayBuffer>).catch(() => {});
  const idle = Symbol("idle");
  try {
    for (;;) {
      const next = await Promise.race([
        reader.read(),
        written
          .then(tick)
          .then(tick)
          .then(() => idle),
      ]);
      if (typeof next === "symbol" || next.done) break;
      if (sink.length + next.value.length > limit) throw new LimitReached();
      sink.write(next.value);
    }
  } catch (err) {
    if (err instanceof LimitReached) throw tooLarge();
  }
  reader.cancel().catch(() => {});
  writer.abort().catch(() => {});
  return sink.bytes();
}

async function run(format: "deflate" | "deflate-raw", data: Uint8Array, limit: number): Promise<Uint8Array> {
  const sink = new ByteSink(limit, data.length * 4);
  const ds = new DecompressionStream(format);
  const writer = ds.writable.getWriter();
  // A corrupt or truncated stream rejects these too; the reader below reports it once.
  writer.write(data as Uint8Array<ArrayBuffer>).catch(() => {});
  writer.close().catch(() => {});
  const reader = ds.readable.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (sink.length + value.length > limit) throw new LimitReached();
      sink.write(value);
    }
  } catch (err) {
    reader.cancel().catch(() => {});
    if (err instanceof LimitReached) throw tooLarge();
    // Real files carry streams with a bad checksum, trailing garbage or a missing end: what
    // decodes before the damage is the stream's content, as other readers take it.
    return salvage(format, data, limit);
  }
  return sink.bytes();
}

/**
 * FlateDecode: zlib data through the runtime's DecompressionStream, up to `limit` decoded bytes.
 * A stream written without its zlib header (seen in the wild) is read as raw deflate.
 */
export async function inflate(data: Uint8Array, limit: number): Promise<Uint8Array> {
  const out = await run("deflate", data, limit);
  if (out.length > 0 || data.length < 2) return out;
  return run("deflate-raw", data, limit);
}
