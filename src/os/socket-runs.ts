import type { Context } from "hono";
import type { WSContext } from "hono/ws";
import type { IndexedEvent } from "../agent/event-log.js";
import type { z } from "zod";
import { BadRequestError, ValidationError } from "../errors.js";
import { keepAlive } from "./agent-runs.js";
import type { OSEnv } from "./context.js";
import { inputProblem, validationError } from "./route.js";
import { compact } from "./sse.js";

/** Largest client message (UTF-16 characters, as the socket hands it over), and most runs one socket may stream at once. */
const MAX_MESSAGE_CHARS = 1024 * 1024;
const MAX_ACTIVE_RUNS = 8;
/** The close code of a socket whose token expired: the application range's "unauthorized", as HTTP's 401. */
const TOKEN_EXPIRED = 4001;

type Frame = Record<string, unknown>;

/**
 * What a WebSocket of runs keeps while it is open, whichever protocol it speaks (`/ws`,
 * `/workflows/ws`): the runs it streams (the request, and its database pool, live as long as the
 * socket and those runs), and the expiry of the token it acts for, after which it is closed.
 */
export class SocketRuns {
  private readonly runs = new Set<Promise<void>>();
  private readonly stayAlive: ((work: Promise<unknown>) => void) | undefined;
  private closed!: () => void;
  private expiry: ReturnType<typeof setTimeout> | undefined;
  private expiresAt: number | undefined;

  /** Sends one JSON frame, unless the client has gone (a run goes on and is stored). */
  static send(ws: WSContext, frame: Frame): void {
    if (ws.readyState === 1) ws.send(JSON.stringify(compact(frame)));
  }

  /** A client's message: JSON text within the size limit, valid for `schema`, every field within bounds; else a 422's error. */
  static parse<T>(data: unknown, schema: z.ZodType<T>): T {
    if (typeof data !== "string") throw new ValidationError("messages must be JSON text", "message");
    if (data.length > MAX_MESSAGE_CHARS)
      throw new ValidationError(`messages are limited to ${MAX_MESSAGE_CHARS} characters`, "message");
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      throw new ValidationError("message is not valid JSON", "message");
    }
    const result = schema.safeParse(json);
    if (!result.success) throw validationError(result.error, "message");
    const problem = inputProblem(result.data, "message");
    if (problem) throw problem;
    return result.data;
  }

  constructor(c: Context<OSEnv>) {
    this.stayAlive = keepAlive(c);
    this.stayAlive?.(new Promise<void>((resolve) => (this.closed = resolve)));
  }

  /**
   * Streams `events` to the socket, each as `frame` writes it; a failure mid-stream is sent as
   * `failure` writes it, with the run's ids seen so far.
   */
  pump<E extends { run_id?: string; session_id?: string }>(
    ws: WSContext,
    events: AsyncIterable<IndexedEvent<E>>,
    frame: (index: number, event: E) => Frame,
    failure: (error: unknown, ids: { run_id?: string; session_id?: string }) => Frame,
  ): void {
    if (this.runs.size >= MAX_ACTIVE_RUNS)
      throw new BadRequestError(`at most ${MAX_ACTIVE_RUNS} runs stream over one connection at a time`);
    const ids: { run_id?: string; session_id?: string } = {};
    const done = (async () => {
      try {
        for await (const { index, event } of events) {
          ids.run_id = event.run_id || ids.run_id;
          ids.session_id = event.session_id || ids.session_id;
          SocketRuns.send(ws, frame(index, event));
        }
      } catch (error) {
        SocketRuns.send(ws, failure(error, ids));
      }
    })();
    this.runs.add(done);
    this.stayAlive?.(done.finally(() => this.runs.delete(done)));
  }

  /** Whether the token the socket acts for has stopped being accepted. */
  expired(): boolean {
    return this.expiresAt !== undefined && Date.now() >= this.expiresAt;
  }

  /** Closes the socket with 4001 (the client gets a fresh token and reconnects); runs it started go on. */
  expire(ws: WSContext, reason = "token expired"): void {
    if (ws.readyState === 0 || ws.readyState === 1) ws.close(TOKEN_EXPIRED, reason);
    this.end();
  }

  /** Closes the socket when a token expiring at `expiresAt` (epoch ms) would no longer be accepted over HTTP. */
  expireAt(ws: WSContext, expiresAt: number | undefined): void {
    this.expiresAt = expiresAt;
    if (this.expiry) clearTimeout(this.expiry);
    if (expiresAt === undefined) return;
    if (this.expired()) return this.expire(ws);
    // setTimeout takes at most 2^31-1 ms; a longer-lived token re-arms.
    this.expiry = setTimeout(() => this.expireAt(ws, expiresAt), Math.min(expiresAt - Date.now(), 2 ** 31 - 1));
  }

  /** Within `ms`, unless `done()` says otherwise by then, the socket is closed with 4001. */
  deadline(ws: WSContext, ms: number, done: () => boolean): void {
    this.expiry = setTimeout(() => (done() ? undefined : this.expire(ws, "not authenticated in time")), ms);
  }

  /** The socket closed or failed: its timers stop, and the request may end once its runs have. */
  end(): void {
    if (this.expiry) clearTimeout(this.expiry);
    this.closed();
  }
}
