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

/** An SSE comment: clients ignore it, proxies see bytes flow. */
export const SSE_PING = ": ping\n\n";

/** How long an SSE stream stays silent before a comment goes out, by default. */
export const DEFAULT_SSE_PING_MS = 15_000;

const PING = Symbol("ping");

/** How `sseResponse` streams: what happens when the client leaves, pings, and how an event is written. */
export interface SseOptions<E> {
  /**
   * When the client goes away: with this, the stream's source is drained in the background
   * (a run finishes and is stored); without it, the source is stopped (a resumed tail).
   */
  finishInBackground?: (work: Promise<unknown>) => void;
  /** silence (ms) after which a `: ping` comment is sent (default 15 s) */
  pingMs?: number;
  /** how an event is written (default: agno's framing, `sseFrame`); a protocol with its own envelope (A2A's JSON-RPC, AG-UI's `data:` lines) gives its own */
  frame?: (event: E, index?: number) => string;
}

/**
 * Streams events as SSE. The status (200) is committed before the first event, so a failure
 * mid-stream arrives as the event(s) `onError` builds (a RunError), never as a broken response.
 * While no event flows (a long model call, a tail waiting on a run elsewhere), a `: ping` comment
 * goes out every `pingMs`, so a proxy's idle timeout (Cloudflare's is 100 s) never cuts the
 * stream; comments are not events, so the events' framing is unchanged.
 */
export function sseResponse<E extends { event: string }>(
  events: AsyncIterable<{ index?: number; event: E }>,
  onError: (error: unknown) => E | E[],
  opts?: SseOptions<E>,
): Response;
/** `sseResponse` of events without agno's `event` name: they need their own `frame`. */
export function sseResponse<E>(
  events: AsyncIterable<{ index?: number; event: E }>,
  onError: (error: unknown) => E | E[],
  opts: SseOptions<E> & { frame: (event: E, index?: number) => string },
): Response;
export function sseResponse<E>(
  events: AsyncIterable<{ index?: number; event: E }>,
  onError: (error: unknown) => E | E[],
  opts: SseOptions<E> = {},
): Response {
  const encoder = new TextEncoder();
  const iterator = events[Symbol.asyncIterator]();
  const pingMs = opts.pingMs ?? DEFAULT_SSE_PING_MS;
  const frame = opts.frame ?? (sseFrame as unknown as (event: E, index?: number) => string);
  // The event being waited for survives a ping: the next pull goes on waiting for the same one.
  let pending: Promise<IteratorResult<{ index?: number; event: E }>> | undefined;
  // A pull still awaiting its event when the client leaves must not write to the closed stream:
  // the event is the background finish's now.
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      try {
        pending ??= iterator.next();
        const silence = new Promise<typeof PING>((resolve) => (timer = setTimeout(() => resolve(PING), pingMs)));
        const next = await Promise.race([pending, silence]);
        if (cancelled) return;
        if (next === PING) {
          controller.enqueue(encoder.encode(SSE_PING));
          return;
        }
        pending = undefined;
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(frame(next.value.event, next.value.index)));
      } catch (error) {
        pending = undefined;
        if (cancelled) return;
        const failed = onError(error);
        controller.enqueue(encoder.encode((Array.isArray(failed) ? failed : [failed]).map((e) => frame(e)).join("")));
        controller.close();
      } finally {
        if (timer) clearTimeout(timer);
      }
    },
    async cancel() {
      cancelled = true;
      if (!opts.finishInBackground) {
        // A next() still in flight (a ping went out meanwhile) settles first: a generator queues the return.
        pending = undefined;
        await iterator.return?.();
        return;
      }
      // The client went away, the run did not: it finishes (and is stored) in the background,
      // starting with the event a ping left waiting, if any.
      const waiting = pending;
      pending = undefined;
      const finish = (async () => {
        if (waiting && (await waiting).done) return;
        for (let n = await iterator.next(); !n.done; n = await iterator.next());
      })().catch(() => undefined);
      opts.finishInBackground(finish);
    },
  });
  return new Response(stream, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache", "x-accel-buffering": "no" },
  });
}
