import type { ExecutionContextLike } from "../os/agent-os.js";

/**
 * Ties a per-request resource (the Neon Pool) to everything the request started: the response
 * body, which outlives `fetch` when it streams, and the work handed to `waitUntil` (a run that
 * goes on after its client left). The resource is released only when all of it has settled;
 * ending it when `fetch` returns would cut a streaming run off from its database.
 */
export function requestLifetime(ctx: ExecutionContext, release: () => Promise<void>) {
  const pending: Promise<unknown>[] = [];
  const scoped: ExecutionContextLike = {
    waitUntil: (work: Promise<unknown>) => {
      pending.push(work);
    },
    passThroughOnException: () => ctx.passThroughOnException(),
  };

  const settle = async () => {
    // New work may be added while earlier work settles (a stream cancelled mid-way hands its run over).
    while (pending.length > 0) await Promise.allSettled(pending.splice(0));
  };

  return {
    ctx: scoped,
    /** Wraps the response so its body is watched; call once with what the app answered. */
    finish(response: Response): Response {
      let bodyDone: Promise<unknown> = Promise.resolve();
      let out = response;
      // Only an event stream reads the database after fetch returns (a run's events); any other
      // body (JSON, an R2 object) was complete, or needs no database, by then: no stream to pipe.
      if (response.body && response.headers.get("content-type")?.startsWith("text/event-stream")) {
        const { readable, writable } = new TransformStream();
        bodyDone = response.body.pipeTo(writable).catch(() => undefined);
        out = new Response(readable, response);
      }
      ctx.waitUntil(
        bodyDone
          .then(settle)
          .finally(release)
          .catch(() => undefined),
      );
      return out;
    },
    /** For a fetch that threw: release after whatever was already started. */
    abandon(): void {
      ctx.waitUntil(
        settle()
          .finally(release)
          .catch(() => undefined),
      );
    },
  };
}
