/**
 * Decides whether a new trace is recorded, from its id alone (OpenTelemetry's TraceIdRatioBased
 * idea): the same trace id gets the same answer in every process, so a background job that
 * continues a trace never records half of it. Spans with a parent follow the parent's decision.
 */
export function ratioSampler(ratio: number): (traceId: string) => boolean {
  if (!(ratio > 0)) return () => false;
  if (ratio >= 1) return () => true;
  // The trace id's last 13 hex digits (52 bits, exact in a double) as a fraction of their range.
  const bound = ratio * 2 ** 52;
  return (traceId) => parseInt(traceId.slice(-13), 16) < bound;
}
