/** Helpers shared by the bench's figures: stdout carries one JSON line per figure, stderr the rest. */
import { Pool } from "@neondatabase/serverless";

export const emit = (figure: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(figure)}\n`);
export const log = (message: string) => process.stderr.write(`[bench] ${message}\n`);
export const round = (x: number, digits = 2) => Number(x.toFixed(digits));
export const secondsSince = (start: number) => (performance.now() - start) / 1000;

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Nearest-rank percentile (p in 0..100): p99 of 200 samples is the 198th smallest. */
export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil((p / 100) * s.length) - 1)]!;
}

export const mean = (xs: number[]) => xs.reduce((sum, x) => sum + x, 0) / xs.length;

let schemaCounter = 0;

/**
 * Runs `fn` in a fresh schema (`<prefix>_<pid>_<time>_<n>`) of the Postgres at `url`, with a pool of
 * its own, and drops the schema afterwards, whatever happens.
 */
export async function inFreshSchema<T>(
  url: string,
  fn: (pool: Pool, schema: string) => Promise<T>,
  prefix = "bench",
): Promise<T> {
  const schema = `${prefix}_${process.pid}_${Date.now().toString(36)}_${schemaCounter++}`;
  const pool = new Pool({ connectionString: url, max: 4 });
  try {
    return await fn(pool, schema);
  } finally {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  }
}
