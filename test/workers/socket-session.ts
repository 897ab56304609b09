import { waitOnExecutionContext } from "cloudflare:test";
import { expect } from "vitest";
import type { Env } from "../../src/index.js";
import { upgradeSocket } from "./worker-client.js";

export type Frame = Record<string, unknown> & { event: string };

/**
 * Opens `GET /ws` (or `path`) through the Worker's fetch handler as the holder of `headers`, and collects
 * every frame the server sends. `until` waits on frames (no timers), `ask` sends one action and
 * returns the first frame answering it.
 */
export async function openSocket(overrides: Partial<Env>, headers: Record<string, string>, path = "/ws") {
  const { res, ctx } = await upgradeSocket(overrides, headers, path);
  expect(res.status).toBe(101);
  const ws = res.webSocket!;
  const frames: Frame[] = [];
  const waiters: Array<() => void> = [];
  ws.addEventListener("message", (evt) => {
    frames.push(JSON.parse(evt.data as string) as Frame);
    waiters.splice(0).forEach((wake) => wake());
  });
  /** Waits until a frame matching `match` has arrived. */
  const until = async (match: (f: Frame) => boolean) => {
    for (;;) {
      const found = frames.find(match);
      if (found) return found;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.addEventListener("close", (evt) => resolve({ code: evt.code, reason: evt.reason })),
  );
  let asked = 0;
  const send = (message: Record<string, unknown>) => ws.send(JSON.stringify(message));
  return {
    frames,
    until,
    send,
    /** The close the server sent (awaited only where the server closes). */
    closed,
    /** The frames answering request `id`, in order. */
    of: (id: string) => frames.filter((f) => f.request_id === id),
    /** Sends `message` under a fresh request id; returns that id and the first frame answering it. */
    async ask(message: Record<string, unknown>) {
      const id = `q${++asked}`;
      send({ ...message, id });
      return { id, first: await until((f) => f.request_id === id) };
    },
    async close() {
      ws.close(1000, "done");
      await waitOnExecutionContext(ctx);
    },
  };
}
