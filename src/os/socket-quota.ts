import type { WSEvents } from "hono/ws";
import { QuotaExceededError } from "../errors.js";

/**
 * Open WebSockets per user (no user, as with a security key: one shared principal), counted in
 * this isolate. A global count is not kept: isolates share no memory, so it would take a Durable
 * Object or a database row per connect and a decrement on every close, and an isolate that dies
 * sends no close, so such a count leaks places nobody holds. Per isolate, a dead isolate's count
 * dies with it, and one user still cannot pile sockets (each holding a request and its database
 * pool open) onto the isolate that serves them.
 */
export class SocketQuota {
  private readonly open = new Map<string, number>();

  constructor(private readonly maxPerUser: number) {}

  /** Takes a place for the user's socket or throws QuotaExceededError (429); returns its release, which may be called more than once. */
  acquire(userId: string | null): () => void {
    const key = userId ?? "";
    const held = this.open.get(key) ?? 0;
    if (held >= this.maxPerUser) {
      const who = userId === null ? "callers without a user (one shared principal)" : `user ${userId}`;
      throw new QuotaExceededError(
        `the per-user WebSocket cap (${this.maxPerUser} open connections) is reached for ${who}: close one first`,
        "websockets",
        5,
      );
    }
    this.open.set(key, held + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(key) ?? 1) - 1;
      if (left > 0) this.open.set(key, left);
      else this.open.delete(key);
    };
  }
}

/** The socket's events, with `release` called once it closes or fails. */
export function releasedOnClose<T>(events: WSEvents<T>, release: () => void): WSEvents<T> {
  return {
    ...events,
    onClose: (evt, ws) => {
      release();
      events.onClose?.(evt, ws);
    },
    onError: (evt, ws) => {
      release();
      events.onError?.(evt, ws);
    },
  };
}
