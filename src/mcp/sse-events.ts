/** One SSE frame's event: its JSON `data` (agno's event, whose `event` field names it). */
export type SseEvent = Record<string, unknown> & { event: string };

/**
 * The events of an SSE body in agno's framing (`event:` then `data:` holding one JSON line),
 * as they arrive; comments (pings) and frames without JSON data are skipped. When `signal`
 * aborts, the body is cancelled: a run route then finishes the run in the background.
 */
export async function* sseEvents(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const stop = () => void reader.cancel().catch(() => undefined);
  signal?.addEventListener("abort", stop, { once: true });
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.search(/\r?\n\r?\n/)) !== -1) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, "");
        const event = eventOf(frame);
        if (event) yield event;
      }
    }
    const last = eventOf(buffer);
    if (last) yield last;
  } finally {
    signal?.removeEventListener("abort", stop);
    await reader.cancel().catch(() => undefined);
  }
}

function eventOf(frame: string): SseEvent | undefined {
  const data = frame
    .split(/\r?\n/)
    .filter((line) => line.startsWith("data:"))
    .map((line) => line.slice(5).replace(/^ /, ""))
    .join("\n");
  if (!data) return undefined;
  try {
    const parsed = JSON.parse(data) as unknown;
    return parsed && typeof parsed === "object" && typeof (parsed as { event?: unknown }).event === "string"
      ? (parsed as SseEvent)
      : undefined;
  } catch {
    return undefined;
  }
}
