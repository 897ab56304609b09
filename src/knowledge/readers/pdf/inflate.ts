import { ByteSink } from "./byte-sink.js";
import { tooLarge } from "./limits.js";

/** The sink refused to grow: the limit, not a corrupt stream, ended decoding. */
class LimitReached extends Error {}

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
    // Real files carry streams with a bad checksum, trailing garbage or a missing end: what was
    // decoded before the error is the stream's content, as other readers take it.
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
