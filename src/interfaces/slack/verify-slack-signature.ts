import { WebhookAuthError } from "../webhook-errors.js";

/** How far a request's timestamp may be from now, either way (Slack's recommended replay window). */
const MAX_SKEW_SECONDS = 5 * 60;

const encoder = new TextEncoder();

/**
 * Checks Slack's request signature: `X-Slack-Signature` must be `v0=` and the hex HMAC-SHA256,
 * keyed by the signing secret, of `v0:{X-Slack-Request-Timestamp}:{raw body}`, and the timestamp
 * recent. WebCrypto's verify compares in constant time, so the check leaks nothing about the
 * expected signature. Throws WebhookAuthError (401) whose message never quotes a secret.
 */
export async function verifySlackSignature(
  signingSecret: string,
  headers: { timestamp: string | undefined; signature: string | undefined },
  body: Uint8Array,
  nowSeconds: number = Date.now() / 1000,
): Promise<void> {
  const { timestamp, signature } = headers;
  if (!timestamp || !signature) throw new WebhookAuthError("missing X-Slack-Signature or X-Slack-Request-Timestamp");
  if (!/^[0-9]{1,12}$/.test(timestamp)) throw new WebhookAuthError("X-Slack-Request-Timestamp is not a Unix time");
  if (Math.abs(nowSeconds - Number(timestamp)) > MAX_SKEW_SECONDS)
    throw new WebhookAuthError("X-Slack-Request-Timestamp is not within five minutes of now");
  const match = /^v0=([0-9a-f]{64})$/.exec(signature);
  if (!match) throw new WebhookAuthError("X-Slack-Signature is not a v0 signature");
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(signingSecret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["verify"],
  );
  const prefix = encoder.encode(`v0:${timestamp}:`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix);
  signed.set(body, prefix.length);
  const ok = await crypto.subtle.verify("HMAC", key, hexBytes(match[1]!), signed);
  if (!ok) throw new WebhookAuthError("X-Slack-Signature does not match the request");
}

function hexBytes(hex: string): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}
