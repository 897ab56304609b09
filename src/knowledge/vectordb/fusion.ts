import type { KnowledgeDocument } from "../document.js";

/** The constant of reciprocal rank fusion (Cormack et al.): damps the weight of the very top ranks. */
export const RRF_K = 60;

/**
 * Reciprocal rank fusion of ranked lists: each document scores Σ 1/(RRF_K + rank) over the lists
 * it appears in (rank from 1), ties broken by first appearance. Documents are matched by id.
 */
export function reciprocalRankFusion(lists: KnowledgeDocument[][], limit: number): KnowledgeDocument[] {
  const scores = new Map<string, { doc: KnowledgeDocument; score: number; first: number }>();
  let order = 0;
  for (const list of lists) {
    list.forEach((doc, i) => {
      const key = doc.id ?? doc.content;
      const entry = scores.get(key);
      if (entry) entry.score += 1 / (RRF_K + i + 1);
      else scores.set(key, { doc, score: 1 / (RRF_K + i + 1), first: order++ });
    });
  }
  return [...scores.values()]
    .sort((a, b) => b.score - a.score || a.first - b.first)
    .slice(0, limit)
    .map((e) => e.doc);
}

/** How many candidates each list of a hybrid search fetches before fusion. */
export function hybridCandidates(limit: number): number {
  return Math.min(1000, Math.max(limit * 4, 40));
}

/** The words of a keyword query: letters and digits, lower-cased, de-duplicated, at most 64. */
export function queryTerms(query: string): string[] {
  return [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])].slice(0, 64);
}
