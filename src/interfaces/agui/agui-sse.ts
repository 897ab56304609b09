import { DEFAULT_SSE_PING_MS, SSE_PING } from "../../os/sse.js";
import type { AguiEvent } from "./agui-events.js";

/** One AG-UI event in AG-UI's SSE framing (its EventEncoder): a `data:` line of JSON, no `event:` line. */
export function aguiFrame(event: AguiEvent): string {
  return `data: ${JSON.stringify(event)}\n\n`;
}

const PING = Symbol("ping");

/**
 * Streams AG-UI events as SSE. A failure of the source arrives as the events `onError` makes
 * (a RUN_ERROR), never as a broken response; while nothing flows a `: ping` comment goes out,
 * so a proxy's idle timeout does not cut the stream. When the client goes away the source is
 * drained by `finishInBackground`, so the run finishes and is stored.
 */
export function aguiResponse(
  events: AsyncIterable<AguiEvent>,
  onError: (error: unknown) => AguiEvent[],
  opts: { finishInBackground?: (work: Promise<unknown>) => void; pingMs?: number } = {},
): Response {
  const encoder = new TextEncoder();
  const iterator = events[Symbol.asyncIterator]();
  const pingMs = opts.pingMs ?? DEFAULT_SSE_PING_MS;
  let pending: Promise<IteratorResult<AguiEvent>> | undefined;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      try {
        pending ??= iterator.next();
        const silence = new Promise<typeof PING>((resolve) => (timer = setTimeout(() => resolve(PING), pingMs)));
        const next = await Promise.race([pending, silence]);
        if (next === PING) {
          controller.enqueue(encoder.encode(SSE_PING));
          return;
        }
        pending = undefined;
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(aguiFrame(next.value)));
      } catch (error) {
        pending = undefined;
        controller.enqueue(encoder.encode(onError(error).map(aguiFrame).join("")));
        controller.close();
      } finally {
        if (timer) clearTimeout(timer);
      }
    },
    cancel() {
      const drain = (async () => {
        if (pending) await pending.catch(() => undefined);
        for (let n = await iterator.next(); !n.done; n = await iterator.next());
      })().catch(() => undefined);
      opts.finishInBackground?.(drain);
    },
  });
  return new Response(stream, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache", "x-accel-buffering": "no" },
  });
}
