import type { Agent } from "../agent/agent.js";
import { recordRunEvents } from "../agent/event-log.js";
import type { Db } from "../db/port.js";
import { runEndingJob } from "./run-ending-job.js";
import type { JobRecord, JobStore, Lease } from "./types.js";

/** How an attempt ended, for the dispatcher to record (and maybe retry). */
export interface Outcome {
  status: "COMPLETED" | "FAILED" | "CANCELLED";
  error?: string;
  /** a failure another attempt might not repeat (a model error); a bad job is not retried */
  retryable?: boolean;
  /** the job's end is already stored (with the run's last write): nothing left for the dispatcher to record */
  recorded?: boolean;
}

/** The run status a streamed run's last event stands for. */
const STATUS_OF_LAST_EVENT: Record<string, string> = {
  RunCompleted: "COMPLETED",
  RunPaused: "PAUSED",
  RunCancelled: "CANCELLED",
};

/** A previous attempt's run that died or failed: it starts over, in the same row. */
const RESTARTABLE = new Set(["RUNNING", "ERROR"]);

/**
 * Runs a queued agent run to its end, storing its events for anyone following it (unless it was
 * submitted with stream=false). A later attempt first looks at what an earlier one left: a run
 * that already ended (its worker died after the run, before the job was marked) is not run again.
 */
export async function executeRunJob(
  job: JobRecord,
  lease: Lease,
  agents: Agent[],
  db: Db,
  jobs: Pick<JobStore, "completeWithRun">,
): Promise<Outcome> {
  const served = agents.find((a) => a.id === job.component_id);
  if (!served) return { status: "FAILED", error: `agent ${job.component_id} is not served by this deployment` };
  const runId = job.payload.run_id;
  const bound = runEndingJob(db, jobs, lease, runId);
  const agent = served.withDb(bound.db);
  // A first attempt's run can only be PENDING, or CANCELLED by a race, which agent.run() handles.
  if (job.attempt > 1) {
    const row = await db.getRun(runId);
    if (!row) return { status: "FAILED", error: `run ${runId} is gone` };
    const status = String(row.status);
    if (status === "CANCELLED") return { status: "CANCELLED" };
    if (status === "COMPLETED" || status === "PAUSED") return { status: "COMPLETED" };
    if (RESTARTABLE.has(status)) {
      await db.upsertRun({ ...row.run_data, status: "PENDING" }, { expectStatus: [status] });
    } else if (status !== "PENDING") {
      return { status: "FAILED", error: `run ${runId} is ${status}` };
    }
  }
  const options = {
    runId,
    sessionId: job.session_id ?? undefined,
    userId: job.user_id ?? undefined,
    sessionState: job.payload.session_state,
    dependencies: job.payload.dependencies,
    metadata: job.payload.metadata,
    media: job.payload.media,
  };
  let ended: { status: string; error?: string };
  if (job.payload.stream === false) {
    // Nobody follows it: no events to store, and its model calls need not stream either.
    const output = await agent.run(job.payload.message, { ...options, stream: false });
    ended = { status: output.status, error: typeof output.content === "string" ? output.content : undefined };
  } else {
    const firstIndex = job.attempt > 1 ? (await db.lastRunEventIndex(runId)) + 1 : 0;
    let last: { event: string; content?: unknown } | undefined;
    const run = agent.run(job.payload.message, { ...options, stream: true });
    // The log of a retried run already starts with the first attempt's RunStarted; agno has no retry
    // event, so the run keeps one RunStarted in total and the retry's events follow on.
    const events = firstIndex > 0 ? withoutRunStarted(run) : run;
    for await (const { event } of recordRunEvents(db, events, { runId, firstIndex })) last = event as typeof last;
    ended = {
      status: STATUS_OF_LAST_EVENT[last?.event ?? ""] ?? "ERROR",
      error: typeof last?.content === "string" ? last.content : undefined,
    };
  }
  switch (ended.status) {
    case "COMPLETED":
    case "PAUSED":
      return { status: "COMPLETED", recorded: bound.jobEnded() };
    case "CANCELLED":
      return { status: "CANCELLED" };
    default:
      return { status: "FAILED", error: ended.error ?? "the run ended without a result", retryable: true };
  }
}

async function* withoutRunStarted<E extends { event: string }>(events: AsyncIterable<E>): AsyncIterable<E> {
  for await (const e of events) if (e.event !== "RunStarted") yield e;
}
