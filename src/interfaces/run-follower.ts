import type { RunEvent } from "../agent/events.js";
import type { MediaInput } from "../agent/media.js";
import type { RunOutput } from "../agent/run-output.js";

/**
 * What follows a run for a chat interface, in the job that runs it: the run's events as they come
 * (to stream text into a thread, to show "typing"), then its end, where the answer, or the
 * buttons of a paused run, are posted. `onEnd` may be called again for the same run by a later
 * attempt whose predecessor died after the run ended: posting is at least once, the run exactly once.
 */
export interface RunFollower {
  /**
   * the files the user sent, fetched from the platform (size-capped) when the job starts: the
   * webhook only records where they are, so it answers at once
   */
  media?(): Promise<MediaInput[]>;
  /** an event of the run; a throw here is logged and ignored: the run goes on */
  onEvent?(event: RunEvent): void | Promise<void>;
  /** the run ended (COMPLETED, PAUSED, ERROR or CANCELLED): a throw makes the job retry the posting */
  onEnd(output: RunOutput): Promise<void>;
}
