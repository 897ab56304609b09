import { NotFoundError } from "../../errors.js";
import type { ContentPage, ContentRecord, ListContentsOptions } from "../../knowledge/content.js";
import { contentListQuery, contentVisible, contentWritable, validateContentRow } from "../knowledge-rows.js";
import type { KnowledgeContentStore } from "../ports/knowledge-content-store.js";
import { validateId } from "../validate.js";
import { copy, stored } from "./tables.js";

/** Knowledge contents in memory, with the Postgres adapter's rules (scoping, paging, validation). */
export class MemoryKnowledgeContentStore implements KnowledgeContentStore {
  readonly rows = new Map<string, ContentRecord>();

  async upsertKnowledgeContent(row: ContentRecord): Promise<ContentRecord> {
    validateContentRow(row);
    const existing = this.rows.get(row.id);
    const next: ContentRecord = stored({ ...row, created_at: existing?.created_at ?? row.created_at });
    this.rows.set(row.id, next);
    return copy(next);
  }

  async getKnowledgeContent(id: string, opts: { userId?: string | null } = {}): Promise<ContentRecord | null> {
    validateId(id, "id");
    const row = this.rows.get(id);
    return row && contentVisible(row, opts.userId) ? copy(row) : null;
  }

  async listKnowledgeContents(opts: ListContentsOptions): Promise<ContentPage> {
    const q = contentListQuery(opts);
    const rows = [...this.rows.values()].filter(
      (r) =>
        (opts.ownOnly && opts.userId !== undefined ? r.user_id === opts.userId : contentVisible(r, opts.userId)) &&
        (opts.linkedTo === undefined || r.linked_to === opts.linkedTo),
    );
    const key = (r: ContentRecord) => (q.sortBy === "name" ? r.name : (r[q.sortBy] ?? 0));
    rows.sort((a, b) => {
      const ka = key(a);
      const kb = key(b);
      const c = ka < kb ? -1 : ka > kb ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
      return q.desc ? -c : c;
    });
    return { items: rows.slice(q.offset, q.offset + q.limit).map(copy), total: rows.length };
  }

  async deleteKnowledgeContent(id: string, opts: { userId?: string | null } = {}): Promise<void> {
    validateId(id, "id");
    const row = this.rows.get(id);
    if (!row || !contentWritable(row, opts.userId)) throw new NotFoundError(`content ${id} not found`);
    this.rows.delete(id);
  }

  async deleteKnowledgeContents(opts: { linkedTo?: string; userId?: string | null }): Promise<number> {
    let n = 0;
    for (const [id, row] of this.rows) {
      if (opts.linkedTo !== undefined && row.linked_to !== opts.linkedTo) continue;
      if (!contentWritable(row, opts.userId)) continue;
      this.rows.delete(id);
      n++;
    }
    return n;
  }
}
