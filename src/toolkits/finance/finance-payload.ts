/**
 * Rounds for token economy without erasing small numbers: 4 decimals for ordinary magnitudes,
 * 4 significant digits below 0.01 (sub-penny prices, tiny ratios), as agno does.
 */
function round(n: number): number {
  if (Number.isInteger(n)) return n;
  return Math.abs(n) >= 0.01 ? Math.round(n * 1e4) / 1e4 : Number(n.toPrecision(4));
}

/** A value made compact and JSON-safe: null, undefined and non-finite numbers dropped, numbers rounded. */
function clean(value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  if (typeof value === "number") return Number.isFinite(value) ? round(value) : undefined;
  if (Array.isArray(value)) return value.map((v) => clean(v) ?? null);
  if (typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const c = clean(v);
      if (c !== undefined) out[k] = c;
    }
    return out;
  }
  return value;
}

/**
 * The answer FinanceTools gives the model, in agno's shapes: a list becomes `{...context,
 * results}`, a record is answered as it is; both carry `provider`, and missing fields are left out
 * (the model says "N/A" rather than reading nulls).
 */
export function financePayload(
  result: unknown,
  context: Record<string, unknown>,
  providerId: string,
): Record<string, unknown> {
  const payload = Array.isArray(result)
    ? { ...context, results: result }
    : result && typeof result === "object"
      ? { ...(result as Record<string, unknown>) }
      : { ...context, result };
  return clean({ ...payload, provider: providerId }) as Record<string, unknown>;
}
