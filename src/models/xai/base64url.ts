import { base64ToBytes, bytesToBase64 } from "../../base64.js";

/** URL-safe base64 with padding, as Python's `urlsafe_b64encode` writes Fernet keys and tokens. */
export function toBase64Url(bytes: Uint8Array): string {
  return bytesToBase64(bytes).replace(/\+/g, "-").replace(/\//g, "_");
}

/** Reads URL-safe base64, with or without padding. */
export function fromBase64Url(text: string): Uint8Array {
  const b64 = text.trim().replace(/-/g, "+").replace(/_/g, "/");
  return base64ToBytes(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
}
