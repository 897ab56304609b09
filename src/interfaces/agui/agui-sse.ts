import { sseResponse } from "../../os/sse.js";
import type { AguiEvent } from "./agui-events.js";

/** One AG-UI event in AG-UI's SSE framing (its EventEncoder): a `data:` line of JSON, no `event:` line. */
export function aguiFrame(event: AguiEvent): string {
  return `data: ${JSON.stringify(event)}\n\n`;
}

/**
 * Streams AG-UI events as SSE (`sseResponse` with AG-UI's framing): a failure of the source
 * arrives as the events `onError` makes (a RUN_ERROR), never as a broken response; `: ping`
 * comments keep proxies from cutting a silent stream; when the client goes away the source is
 * drained by `finishInBackground`, so the run finishes and is stored.
 */
export function aguiResponse(
  events: AsyncIterable<AguiEvent>,
  onError: (error: unknown) => AguiEvent[],
  opts: { finishInBackground?: (work: Promise<unknown>) => void; pingMs?: number } = {},
): Response {
  return sseResponse(unnumbered(events), onError, { ...opts, frame: aguiFrame });
}

async function* unnumbered<E>(events: AsyncIterable<E>): AsyncGenerator<{ event: E }> {
  for await (const event of events) yield { event };
}
