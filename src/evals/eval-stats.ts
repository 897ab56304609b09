/** The summary statistics agno's eval results carry, computed as Python's `statistics` module does. */
export interface Stats {
  avg: number;
  min: number;
  max: number;
  /** the sample standard deviation; 0 for a single value */
  stdDev: number;
  median: number;
  /** the 95th percentile, interpolated within the observed range (`quantiles(method="inclusive")`) */
  p95: number;
}

/** Statistics of a non-empty list of numbers; undefined for an empty one. */
export function statsOf(values: readonly number[]): Stats | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const avg = sorted.reduce((s, v) => s + v, 0) / n;
  const stdDev = n > 1 ? Math.sqrt(sorted.reduce((s, v) => s + (v - avg) ** 2, 0) / (n - 1)) : 0;
  const mid = Math.floor(n / 2);
  const median = n % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  const h = (n - 1) * 0.95;
  const lo = Math.floor(h);
  const p95 = lo + 1 < n ? sorted[lo]! + (h - lo) * (sorted[lo + 1]! - sorted[lo]!) : sorted[lo]!;
  return { avg, min: sorted[0]!, max: sorted[n - 1]!, stdDev, median, p95 };
}
