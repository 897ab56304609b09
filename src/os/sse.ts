/** Drops null and undefined fields, deeply, as agno's SSE payloads do. */
export function compact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(compact);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== null && v !== undefined) out[k] = compact(v);
    return out;
  }
  return value;
}

/** One SSE frame in agno's framing: `event: <Name>` then `data: <compact JSON>`. */
export function sseFrame(event: { event: string }): string {
  return `event: ${event.event}\ndata: ${JSON.stringify(compact(event))}\n\n`;
}

/**
 * Streams events as SSE. The status (200) is committed before the first event, so a failure
 * mid-stream arrives as a RunError event built by `onError`, never as a broken response.
 */
export function sseResponse<E extends { event: string }>(
  events: AsyncIterable<E>,
  onError: (error: unknown) => E,
  keepAlive?: (work: Promise<unknown>) => void,
): Response {
  const encoder = new TextEncoder();
  const iterator = events[Symbol.asyncIterator]();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await iterator.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(sseFrame(next.value)));
      } catch (error) {
        controller.enqueue(encoder.encode(sseFrame(onError(error))));
        controller.close();
      }
    },
    cancel() {
      // The client went away, the run did not: it finishes (and is stored) in the background.
      const finish = (async () => {
        for (let n = await iterator.next(); !n.done; n = await iterator.next());
      })().catch(() => undefined);
      keepAlive?.(finish);
    },
  });
  return new Response(stream, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache", "x-accel-buffering": "no" },
  });
}
