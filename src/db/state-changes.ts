/**
 * What a run did to its session's state, as changes that can be applied to whatever is stored
 * by then: concurrent runs of one session each loaded the state, changed it and write it back,
 * and writing the whole object would drop every other run's changes (four notes saved at once
 * kept one). Objects merge key by key, at any depth; a list the run only appended to keeps its
 * appends after whatever others appended; anything else (a new value, a list changed otherwise)
 * is set, so the last writer wins that key only.
 */
export type StateChange =
  | { op: "set"; path: string[]; value: unknown }
  | { op: "delete"; path: string[] }
  /** `value` is the run's whole list: what the key becomes when it no longer holds a list */
  | { op: "append"; path: string[]; items: unknown[]; value: unknown[] };

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The changes that turn `base` (the state the run loaded) into `next` (the state it ends with). */
export function stateChanges(base: Obj, next: Obj, path: string[] = []): StateChange[] {
  const out: StateChange[] = [];
  for (const [key, value] of Object.entries(next)) {
    const at = [...path, key];
    if (!(key in base)) {
      // A list or object the run made is merged too: two runs that each start the same list keep both items.
      if (Array.isArray(value) && value.length > 0) out.push({ op: "append", path: at, items: value, value });
      else if (isObject(value) && Object.keys(value).length > 0) out.push(...stateChanges({}, value, at));
      else if (value !== undefined) out.push({ op: "set", path: at, value });
      continue;
    }
    const before = base[key];
    if (same(before, value)) continue;
    if (value === undefined) out.push({ op: "delete", path: at });
    else if (isObject(before) && isObject(value)) out.push(...stateChanges(before, value, at));
    else if (
      Array.isArray(before) &&
      Array.isArray(value) &&
      value.length > before.length &&
      same(before, value.slice(0, before.length))
    ) {
      out.push({ op: "append", path: at, items: value.slice(before.length), value });
    } else out.push({ op: "set", path: at, value });
  }
  for (const key of Object.keys(base)) if (!(key in next)) out.push({ op: "delete", path: [...path, key] });
  return out;
}

/** `current` (the stored state, not changed) with `changes` applied: a new object. */
export function applyStateChanges(current: Obj, changes: StateChange[]): Obj {
  const root: Obj = structuredClone(current);
  for (const change of changes) {
    const parent = parentOf(root, change.path, change.op !== "delete");
    if (!parent) continue; // a delete under a parent another run removed: nothing left to delete
    const key = change.path.at(-1)!;
    if (change.op === "delete") delete parent[key];
    else if (change.op === "append") {
      const stored = parent[key];
      parent[key] = Array.isArray(stored) ? [...stored, ...change.items] : change.value;
    } else parent[key] = change.value;
  }
  return root;
}

/** The object holding `path`'s last key; `create`: parents another run removed or replaced are made again. */
function parentOf(root: Obj, path: string[], create: boolean): Obj | null {
  let parent = root;
  for (const step of path.slice(0, -1)) {
    if (!isObject(parent[step])) {
      if (!create) return null;
      parent[step] = {};
    }
    parent = parent[step] as Obj;
  }
  return parent;
}

/** `over` merged into `base` as agno's `merge_dictionaries` does: objects key by key at any depth, `over` winning. */
export function mergeState(base: Obj, over: Obj): Obj {
  const out: Obj = { ...base };
  for (const [key, value] of Object.entries(over))
    out[key] = isObject(out[key]) && isObject(value) ? mergeState(out[key] as Obj, value) : value;
  return out;
}
