/** Base64 without Node's Buffer (Workers have btoa/atob); in slices, so no giant intermediate string. */
export function bytesToBase64(bytes: Uint8Array): string {
  const SLICE = 3 * 8192;
  let out = "";
  for (let i = 0; i < bytes.length; i += SLICE) {
    const slice = bytes.subarray(i, i + SLICE);
    let binary = "";
    for (let j = 0; j < slice.length; j += 4096) binary += String.fromCharCode(...slice.subarray(j, j + 4096));
    out += btoa(binary);
  }
  return out;
}

export function base64ToBytes(b64: string): Uint8Array {
  const binary = atob(b64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
