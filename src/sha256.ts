/** Lowercase hex of `bytes`: how hashes are stored (`content_hash`, `args_hash`), and key-unsafe session ids. */
export function hex(bytes: Uint8Array): string {
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** SHA-256 of the bytes (a string: of its UTF-8), lowercase hex; Web Crypto, so Node and Workers alike. */
export async function sha256Hex(body: Uint8Array | string): Promise<string> {
  // Typed for ArrayBuffer-backed views only; what is hashed here never lives in a SharedArrayBuffer.
  return hex(
    new Uint8Array(
      await crypto.subtle.digest(
        "SHA-256",
        (typeof body === "string" ? new TextEncoder().encode(body) : body) as Uint8Array<ArrayBuffer>,
      ),
    ),
  );
}
