import { ConflictError, ValidationError } from "../../errors.js";
import type { RunEventStore, StoredRunEvent } from "../port.js";
import { validateId } from "../validate.js";
import { copy, now, stored, type MemoryTables } from "./tables.js";

const MAX_BATCH = 1000;
const MAX_READ = 1000;

/** Run event logs in memory, with the Postgres adapter's rules: positions taken once, logs only of stored runs, pruned whole. */
export class MemoryRunEventStore implements RunEventStore {
  constructor(private readonly t: MemoryTables) {}

  async appendRunEvents(runId: string, firstIndex: number, events: object[]): Promise<void> {
    validateId(runId, "run_id");
    if (!Number.isInteger(firstIndex) || firstIndex < 0)
      throw new ValidationError("firstIndex must be a non-negative integer", "firstIndex");
    if (events.length === 0) return;
    if (events.length > MAX_BATCH) throw new ValidationError(`at most ${MAX_BATCH} events per append`, "events");
    const log = this.t.runEvents.get(runId) ?? [];
    const last = firstIndex + events.length - 1;
    if (log.some((e) => e.index >= firstIndex && e.index <= last))
      throw new ConflictError(`run ${runId} already has events at ${firstIndex}..${last}`);
    if (!this.t.runs.has(runId)) throw new ConflictError(`run ${runId} is not stored: its events cannot be`);
    const ts = now();
    const added = events.map((e, i) => ({
      index: firstIndex + i,
      event: stored(e) as StoredRunEvent["event"],
      created_at: ts,
    }));
    this.t.runEvents.set(
      runId,
      [...log, ...added].sort((a, b) => a.index - b.index),
    );
  }

  async getRunEvents(runId: string, opts: { afterIndex: number; limit?: number }): Promise<StoredRunEvent[]> {
    validateId(runId, "run_id");
    const { afterIndex, limit = 500 } = opts;
    if (!Number.isInteger(afterIndex) || afterIndex < -1)
      throw new ValidationError("afterIndex must be an integer of at least -1", "last_event_index");
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_READ)
      throw new ValidationError(`limit must be 1..${MAX_READ}`, "limit");
    return (this.t.runEvents.get(runId) ?? [])
      .filter((e) => e.index > afterIndex)
      .slice(0, limit)
      .map((e) => ({ index: e.index, event: copy(e.event) }));
  }

  async lastRunEventIndex(runId: string): Promise<number> {
    validateId(runId, "run_id");
    return this.t.runEvents.get(runId)?.at(-1)?.index ?? -1;
  }

  /** Whole logs go at once, so a resumed client never sees a run's stream with its start cut off. */
  async pruneRunEvents(createdBefore: number): Promise<number> {
    let gone = 0;
    for (const [runId, log] of [...this.t.runEvents]) {
      if (log.length > 0 && Math.max(...log.map((e) => e.created_at)) < createdBefore) {
        this.t.runEvents.delete(runId);
        gone += log.length;
      }
    }
    return gone;
  }
}
