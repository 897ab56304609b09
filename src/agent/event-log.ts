import type { Db, StoredRunEvent } from "../db/port.js";
import { DEFAULT_HEARTBEAT_SECONDS, INTERRUPTED, STALE_AFTER_BEATS, staleAfterSeconds } from "./liveness.js";
import { nowSeconds } from "../time.js";
import { errorMessage } from "../errors.js";

/** Events after which a run's stream has nothing more to say (a paused run goes on only after `continue`). */
/** The events that close a run's stream: an agent's, a team's (agno's `Team` names) and a workflow's. */
const STREAM_ENDS = new Set([
  "RunCompleted",
  "RunError",
  "RunCancelled",
  "RunPaused",
  "TeamRunCompleted",
  "TeamRunError",
  "TeamRunCancelled",
  "TeamRunPaused",
  "WorkflowCompleted",
  "WorkflowError",
  "WorkflowCancelled",
  "WorkflowPaused",
]);

/**
 * Whether `event` closes the stream of run `runId`: a closing event of that run, not of a run
 * inside it (a team's member, a workflow step's agent), whose events share the log.
 */
const closes = (event: { event: string; run_id?: string }, runId: string) =>
  STREAM_ENDS.has(event.event) && (event.run_id === undefined || event.run_id === "" || event.run_id === runId);
const RUN_ENDED = new Set(["COMPLETED", "ERROR", "CANCELLED", "PAUSED"]);

export interface IndexedEvent<E> {
  index: number;
  event: E;
}

export interface RecordOptions {
  /** the run's id when known up front (a continue); otherwise taken from the first event */
  runId?: string;
  /** the position of the first event (a continue goes on after the run's earlier events) */
  firstIndex?: number;
  /** longest an event waits in the buffer before it is written (default 50 ms) */
  flushIntervalMs?: number;
  /** events written per statement at most (default 200) */
  maxBatch?: number;
}

/**
 * Gives each event of a run its position and stores the events in batches as they pass, so a
 * client whose connection dropped can re-attach from any isolate (`tailRunEvents`). The caller
 * gets every event as soon as the run yields it; writing is never on that path, except for the
 * closing event (stored before it is passed on) and the end of the stream (after the last batch).
 */
export async function* recordRunEvents<E extends { event: string; run_id?: string }, R = void>(
  db: Db,
  events: AsyncIterable<E, R>,
  opts: RecordOptions = {},
): AsyncGenerator<IndexedEvent<E>, R> {
  const interval = opts.flushIntervalMs ?? 50;
  const maxBatch = opts.maxBatch ?? 200;
  let runId = opts.runId;
  let next = opts.firstIndex ?? 0;
  let buffer: E[] = [];
  let bufferStart = next;
  let writing: Promise<void> = Promise.resolve();
  let timer: ReturnType<typeof setTimeout> | undefined;

  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (buffer.length === 0 || !runId) return writing;
    const batch = buffer;
    const start = bufferStart;
    const id = runId;
    buffer = [];
    bufferStart = next;
    // Batches are written one after another, in order; a failed write loses that batch for
    // re-attaching clients only (the live stream and the stored run are unaffected).
    writing = writing.then(() =>
      db.appendRunEvents(id, start, batch).catch((error: unknown) => {
        console.error(`run ${id}: events ${start}..${start + batch.length - 1} not stored: ${errorMessage(error)}`);
      }),
    );
    return writing;
  };

  // Stepped by hand, not `for await`: the source's return value (a run's final output) is passed on.
  const source = events[Symbol.asyncIterator]();
  let finished = false;
  try {
    for (;;) {
      const step = await source.next();
      if (step.done) {
        finished = true;
        return step.value;
      }
      const event = step.value;
      runId ??= event.run_id || undefined;
      const index = next++;
      // A copy as it is now: the run may still change objects an event points to (a tool's result).
      buffer.push(JSON.parse(JSON.stringify(event)) as E);
      // A closing event is stored before the client sees it: whoever saw the end of a stream
      // can re-attach and find it too.
      if (STREAM_ENDS.has(event.event)) await flush();
      // The first event goes out at once, so a client re-attaching early finds the log started.
      else if (index === opts.firstIndex || index === 0 || buffer.length >= maxBatch) void flush();
      else timer ??= setTimeout(() => void flush(), interval);
      yield { index, event };
    }
  } finally {
    // A consumer that stopped early stops the source too, as `for await` would.
    if (!finished) await source.return?.();
    await flush();
  }
}

export interface TailOptions {
  /** first wait between polls when nothing new arrived; doubles up to `maxPollMs` (default 25) */
  pollMs?: number;
  maxPollMs?: number;
  /** give up on a run that stays silent this long (a worker that died mid-run; default 5 min) */
  idleTimeoutMs?: number;
  /** how long to wait for the closing event of a run already marked over (default 5 s) */
  closingGraceMs?: number;
  /**
   * a RUNNING run whose heartbeat is older than this (seconds) is interrupted, as the cron tick
   * would, and the tail ends with its RunError (default three beats of the default heartbeat)
   */
  staleAfterSeconds?: number;
  signal?: AbortSignal;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(t), resolve()), { once: true });
  });

/**
 * A run's stored events after `afterIndex`, then the new ones as they are stored, until the run
 * is over and its closing event (completed, failed, cancelled, paused) has been read; a paused
 * run that is continued later goes on in the same log. A run whose runtime died (RUNNING, its
 * heartbeat stale, no job of the queue holding it) is marked interrupted then and there, so the
 * tail ends with that RunError instead of waiting; a run that ended without its closing event
 * stored ends with one made from the stored run. Also ends when the run stays silent for
 * `idleTimeoutMs` or `signal` aborts. Reads only the database, so it works wherever the run is
 * executing.
 */
export async function* tailRunEvents(
  db: Db,
  runId: string,
  afterIndex: number,
  opts: TailOptions = {},
): AsyncGenerator<StoredRunEvent> {
  const firstPoll = opts.pollMs ?? 25;
  const maxPoll = opts.maxPollMs ?? 500;
  const idleTimeout = opts.idleTimeoutMs ?? 5 * 60_000;
  const grace = opts.closingGraceMs ?? 5_000;
  const staleAfter = opts.staleAfterSeconds ?? staleAfterSeconds(DEFAULT_HEARTBEAT_SECONDS);
  // A run the queue still holds stays stale until its job is claimed again: asked once a beat, not every poll.
  let nextStaleCheck = 0;
  let last = afterIndex;
  // The run's state is settled by the event the client last saw, if it was a closing one.
  const seen =
    afterIndex >= 0 ? (await db.getRunEvents(runId, { afterIndex: afterIndex - 1, limit: 1 }))[0] : undefined;
  let closed = seen !== undefined && closes(seen.event, runId);
  let wait = firstPoll;
  let lastNews = Date.now();
  let overSince: number | undefined;
  while (!opts.signal?.aborted) {
    const batch = await db.getRunEvents(runId, { afterIndex: last });
    for (const stored of batch) {
      last = stored.index;
      closed = closes(stored.event, runId);
      yield stored;
    }
    if (batch.length > 0) {
      wait = firstPoll;
      lastNews = Date.now();
      continue;
    }
    const run = await db.getRun(runId);
    if (!run) return;
    if (RUN_ENDED.has(String(run.status))) {
      // The status is stored just before the closing event is; give that event a moment to land.
      if (closed) return;
      overSince ??= Date.now();
      if (Date.now() - overSince > grace) {
        // Its closing event was never stored (its write failed): a failed run still ends with its error.
        const error =
          run.status === "ERROR"
            ? (run.run_data as { error?: { message?: string; type?: string; kind?: string } }).error
            : undefined;
        if (error?.message) yield { index: last + 1, event: closingError(run, error) };
        return;
      }
    } else {
      overSince = undefined;
      const heartbeat = run.updated_at ?? run.created_at;
      if (run.status === "RUNNING" && heartbeat < Date.now() / 1000 - staleAfter && Date.now() >= nextStaleCheck) {
        nextStaleCheck = Date.now() + (staleAfter / STALE_AFTER_BEATS) * 1000;
        const staleBefore = nowSeconds() - staleAfter;
        // The same statement the cron tick runs, for this run only: its RunError lands in the log, read next.
        if ((await db.interruptStaleRuns({ ...INTERRUPTED, staleBefore, runId, limit: 1 })).length > 0) {
          wait = firstPoll;
          continue;
        }
      }
      if (Date.now() - lastNews > idleTimeout) return;
    }
    await sleep(wait, opts.signal);
    wait = Math.min(wait * 2, maxPoll);
  }
}

/** The RunError a failed run's stored error stands for, when its own was never stored. */
function closingError(
  run: { run_id: string; session_id: string; agent_id: string | null; updated_at: number | null; created_at: number },
  error: { message?: string; type?: string; kind?: string },
) {
  return {
    event: "RunError",
    run_id: run.run_id,
    session_id: run.session_id,
    ...(run.agent_id ? { agent_id: run.agent_id } : {}),
    created_at: run.updated_at ?? run.created_at,
    content: error.message,
    error_type: error.type ?? "Error",
    ...(error.kind ? { error_kind: error.kind } : {}),
  };
}
