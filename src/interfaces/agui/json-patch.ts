/** One RFC 6902 operation, as AG-UI's STATE_DELTA carries them. */
export type JsonPatchOp =
  | { op: "add"; path: string; value: unknown }
  | { op: "replace"; path: string; value: unknown }
  | { op: "remove"; path: string };

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON Pointer token (RFC 6901): `~` first, so an escaped `/` is not read back as `~1`'s `~`. */
const token = (key: string | number) => String(key).replace(/~/g, "~0").replace(/\//g, "~1");

const isObject = (value: Json): value is { [key: string]: Json } =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Whether two JSON values are the same (key order in objects does not matter). */
function same(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => same(v, b[i]!));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && same(a[k]!, b[k]!));
  }
  return false;
}

function diff(a: Json, b: Json, path: string, ops: JsonPatchOp[]): void {
  if (same(a, b)) return;
  if (isObject(a) && isObject(b)) {
    for (const key of Object.keys(a))
      if (!Object.hasOwn(b, key)) ops.push({ op: "remove", path: `${path}/${token(key)}` });
    for (const key of Object.keys(b)) {
      if (Object.hasOwn(a, key)) diff(a[key]!, b[key]!, `${path}/${token(key)}`, ops);
      else ops.push({ op: "add", path: `${path}/${token(key)}`, value: b[key] });
    }
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const shared = Math.min(a.length, b.length);
    for (let i = 0; i < shared; i++) diff(a[i]!, b[i]!, `${path}/${i}`, ops);
    for (let i = shared; i < b.length; i++) ops.push({ op: "add", path: `${path}/${i}`, value: b[i] });
    // From the end, so each index still names the item meant when its op is applied.
    for (let i = a.length - 1; i >= shared; i--) ops.push({ op: "remove", path: `${path}/${i}` });
    return;
  }
  ops.push({ op: "replace", path, value: b });
}

/**
 * The RFC 6902 operations that turn `from` into `to` (agno's jsonpatch.make_patch for STATE_DELTA):
 * objects compared key by key, arrays index by index (items added or removed at their end), any
 * other change a replace. Both are read as JSON (what JSON.stringify keeps), and the operations'
 * values are copies, so a later change to `to` does not reach them.
 */
export function jsonPatch(from: unknown, to: unknown): JsonPatchOp[] {
  const asJson = (value: unknown) => JSON.parse(JSON.stringify(value) ?? "null") as Json;
  const ops: JsonPatchOp[] = [];
  diff(asJson(from), asJson(to), "", ops);
  return ops;
}
