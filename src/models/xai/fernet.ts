import { fromBase64Url, toBase64Url } from "./base64url.js";

/**
 * Fernet (AES-128-CBC with an HMAC-SHA256 tag, a versioned and timestamped token) over WebCrypto,
 * the format agno's `encrypt_dict` writes, so a token row is readable by agno and by us with the
 * same key. The key is a Fernet key: 32 random bytes as URL-safe base64 (`generateEncryptionKey`).
 */
export async function fernetEncrypt(key: string, plaintext: string, now = Date.now()): Promise<string> {
  const { signing, encryption } = await keysOf(key);
  const iv = crypto.getRandomValues(new Uint8Array(16));
  const cipher = new Uint8Array(
    await crypto.subtle.encrypt({ name: "AES-CBC", iv }, encryption, new TextEncoder().encode(plaintext)),
  );
  const head = new Uint8Array(25);
  head[0] = 0x80;
  new DataView(head.buffer).setBigUint64(1, BigInt(Math.floor(now / 1000)));
  head.set(iv, 9);
  const body = concat(head, cipher);
  const tag = new Uint8Array(await crypto.subtle.sign("HMAC", signing, body));
  return toBase64Url(concat(body, tag));
}

/** The plaintext of a Fernet token; throws when the key is wrong or the token was altered. */
export async function fernetDecrypt(key: string, token: string): Promise<string> {
  const { signing, encryption } = await keysOf(key);
  const bytes = new Uint8Array(fromBase64Url(token));
  if (bytes.length < 57 || bytes[0] !== 0x80) throw new Error("not a Fernet token");
  const body = bytes.subarray(0, bytes.length - 32);
  const tag = bytes.subarray(bytes.length - 32);
  if (!(await crypto.subtle.verify("HMAC", signing, tag, body))) throw new Error("wrong key or altered token");
  const plain = await crypto.subtle.decrypt(
    { name: "AES-CBC", iv: body.subarray(9, 25) },
    encryption,
    body.subarray(25),
  );
  return new TextDecoder().decode(plain);
}

/** A fresh Fernet key (what agno's `generate_encryption_key` returns). */
export function generateEncryptionKey(): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
}

async function keysOf(key: string): Promise<{ signing: CryptoKey; encryption: CryptoKey }> {
  let raw: Uint8Array<ArrayBuffer>;
  try {
    raw = new Uint8Array(fromBase64Url(key));
  } catch {
    raw = new Uint8Array();
  }
  if (raw.length !== 32) throw new Error("the encryption key must be a Fernet key: 32 bytes as URL-safe base64");
  const [signing, encryption] = await Promise.all([
    crypto.subtle.importKey("raw", raw.subarray(0, 16), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]),
    crypto.subtle.importKey("raw", raw.subarray(16), { name: "AES-CBC" }, false, ["encrypt", "decrypt"]),
  ]);
  return { signing, encryption };
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
