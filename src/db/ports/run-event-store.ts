/** One event of a run's stored stream: its position and the event as it was sent. */
export interface StoredRunEvent {
  index: number;
  event: Record<string, unknown> & { event: string };
}

/** A streamed run's event log, by position, so a client can re-attach from any isolate. */
export interface RunEventStore {
  /**
   * Stores a run's events at consecutive positions from `firstIndex` (a streamed run's log, so a
   * client can re-attach from any isolate). ConflictError when a position is already taken.
   */
  appendRunEvents(runId: string, firstIndex: number, events: object[]): Promise<void>;
  /** the run's events after position `afterIndex`, in order, at most `limit` (default 500) */
  getRunEvents(runId: string, opts: { afterIndex: number; limit?: number }): Promise<StoredRunEvent[]>;
  /** the last stored position of the run's events, -1 when it has none */
  lastRunEventIndex(runId: string): Promise<number>;
  /** deletes event logs stored before `createdBefore` (epoch seconds); returns how many events */
  pruneRunEvents(createdBefore: number): Promise<number>;
}
