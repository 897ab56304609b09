const encoder = new TextEncoder();

/** Equal texts, compared in time independent of where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i % x.length] ?? 0) ^ (y[i % y.length] ?? 0);
  return diff === 0;
}

/**
 * Whether `header` (Meta's `X-Hub-Signature-256`) is `sha256=` and the hex HMAC-SHA256 of the
 * exact bytes received under the app secret. The digests are compared in constant time, so a
 * forger learns nothing from how long a refusal takes.
 */
export async function verifyMetaSignature(
  appSecret: string,
  body: ArrayBuffer,
  header: string | undefined,
): Promise<boolean> {
  if (!header || !/^sha256=[0-9a-f]{64}$/i.test(header)) return false;
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(appSecret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, body));
  const expected = Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("");
  return constantTimeEqual(expected, header.slice("sha256=".length).toLowerCase());
}
