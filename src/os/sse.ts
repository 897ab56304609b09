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

/**
 * One SSE frame in agno's framing, `event: <Name>` then `data: <compact JSON>`, preceded by the
 * standard `id:` field carrying the event's position in its run when it has one: the value to
 * send back as `last_event_index` (or `Last-Event-ID`) to re-attach. Clients that read only
 * `event:` and `data:` lines see agno's frames unchanged.
 */
export function sseFrame(event: { event: string }, index?: number): string {
  return `${index === undefined ? "" : `id: ${index}\n`}event: ${event.event}\ndata: ${JSON.stringify(compact(event))}\n\n`;
}

/**
 * Streams events as SSE. The status (200) is committed before the first event, so a failure
 * mid-stream arrives as a RunError event built by `onError`, never as a broken response.
 */
export function sseResponse<E extends { event: string }>(
  events: AsyncIterable<{ index?: number; event: E }>,
  onError: (error: unknown) => E,
  opts: {
    /**
     * When the client goes away: with this, the stream's source is drained in the background
     * (a run finishes and is stored); without it, the source is stopped (a resumed tail).
     */
    finishInBackground?: (work: Promise<unknown>) => void;
  } = {},
): Response {
  const encoder = new TextEncoder();
  const iterator = events[Symbol.asyncIterator]();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await iterator.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(sseFrame(next.value.event, next.value.index)));
      } catch (error) {
        controller.enqueue(encoder.encode(sseFrame(onError(error))));
        controller.close();
      }
    },
    async cancel() {
      if (!opts.finishInBackground) {
        await iterator.return?.();
        return;
      }
      // The client went away, the run did not: it finishes (and is stored) in the background.
      const finish = (async () => {
        for (let n = await iterator.next(); !n.done; n = await iterator.next());
      })().catch(() => undefined);
      opts.finishInBackground(finish);
    },
  });
  return new Response(stream, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache", "x-accel-buffering": "no" },
  });
}
