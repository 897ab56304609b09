/**
 * A response body's bytes, read no further than `maxBytes`: null as soon as it holds more (the
 * rest is not downloaded). A declared Content-Length over the cap is refused before any read;
 * a body that lies about its length is caught while reading. No body: empty.
 */
export async function readCapped(res: Response, maxBytes: number): Promise<Uint8Array | null> {
  if (!res.body) return new Uint8Array();
  if (Number(res.headers.get("content-length") ?? NaN) > maxBytes) {
    await res.body.cancel();
    return null;
  }
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}
