/** Ids are unique within each kind (an agent and a team may share one: their paths differ). */
export function checkUniqueIds(kind: string, list: ReadonlyArray<{ readonly id: string }>): void {
  const ids = new Set<string>();
  for (const item of list) {
    if (ids.has(item.id)) throw new TypeError(`two ${kind} have the id ${item.id}`);
    ids.add(item.id);
  }
}
