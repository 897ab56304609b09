import type { Db } from "../../db/port.js";
import { StatusConflictError } from "../../errors.js";
import type { MediaRecord } from "../../models/message.js";
import { referenceOf } from "../../offload/media-offload.js";
import type { MediaReference } from "../../offload/media-storage.js";
import { publicError } from "../../public-error.js";
import type { Outcome } from "../../queue/executor.js";
import type { JobHandler } from "../../queue/job-handler.js";
import { nowSeconds } from "../../time.js";
import type { MiniMaxApi } from "./minimax-api.js";
import { MiniMaxApiError } from "./minimax-api-error.js";

/** The `job_type` of a MiniMax video waiting to be fetched. */
export const MINIMAX_VIDEO_JOB_TYPE = "minimax_video";

/** The session-state key under which each task's outcome is recorded, by task id. */
export const MINIMAX_VIDEOS_STATE_KEY = "minimax_videos";

/** What the job carries (JSON, shown by /queue/jobs: no secret, no prompt). */
export interface MiniMaxVideoJobPayload {
  task_id: string;
  /** the run whose tool call submitted it: the video joins that run's `videos` */
  origin: { run_id: string; session_id: string; tool_call_id?: string };
  /** epoch seconds after which a task still not done is given up */
  deadline_at: number;
}

/** A task's outcome as session state records it (`session_state.minimax_videos[task_id]`). */
export interface MiniMaxVideoResult {
  status: "stored" | "failed";
  task_id: string;
  run_id: string;
  /** where the video is: `GET /sessions/{session_id}/media/{storage_key}` serves it */
  video?: Pick<MediaReference, "media_id" | "storage_key" | "mime_type" | "size" | "content_hash"> & {
    width?: number;
    height?: number;
  };
  error?: string;
  /** epoch seconds */
  updated_at: number;
}

export interface MiniMaxVideoJobOptions {
  /** seconds between two looks at a task still being made */
  pollSeconds: number;
  /** largest video accepted, in bytes */
  maxVideoBytes: number;
}

/** Statuses of a task MiniMax is still working on. */
const WORKING = new Set(["Preparing", "Queueing", "Processing"]);
/** A run still being written: a video added now would be lost to its next write. */
const RUN_GOING = new Set(["PENDING", "RUNNING"]);
/** How long the job waits for a run still going before it looks again. */
const RUN_WAIT_SECONDS = 5;

/** The media record's id for a task: the same on every attempt, so a repeat finds what an earlier one stored. */
const mediaIdOf = (taskId: string) => `minimax-${taskId}`;

/**
 * The queue's handler for MiniMax videos: polls the task, put back to wait `pollSeconds` while
 * MiniMax works (without using an attempt) until `deadline_at`; on success retrieves the file,
 * downloads it (size-capped, checked to be an MP4), stores it in the deployment's MediaStorage,
 * adds it to the submitting run's `videos` (so the session's media route serves it to whoever
 * may read the session) and records the outcome in the session's state; on failure records the
 * reason there. Redelivery is harmless: a video already in the run is not downloaded again, and
 * its media record keeps one id per task.
 */
export function minimaxVideoJob(api: MiniMaxApi, opts: MiniMaxVideoJobOptions): JobHandler {
  return {
    jobType: MINIMAX_VIDEO_JOB_TYPE,
    async execute(job, { db, media }): Promise<Outcome> {
      const payload = payloadOf(job.payload as unknown as Record<string, unknown>);
      if (!payload)
        return { status: "FAILED", error: "the job's payload is not a MiniMax video task", retryable: false };
      const { task_id: taskId, origin } = payload;
      const fail = async (error: string): Promise<Outcome> => {
        await record(db, payload, { status: "failed", error });
        return { status: "FAILED", error, retryable: false };
      };
      if (!media) return fail("the deployment has no media storage to keep the video in");
      const run = await db.getRun(origin.run_id);
      if (!run) return { status: "FAILED", error: `run ${origin.run_id} is gone`, retryable: false };
      const runStatus = String(run.status);
      const mediaId = mediaIdOf(taskId);
      const kept = ((run.run_data.videos as MediaRecord[] | undefined) ?? []).find((v) => v.id === mediaId);
      const keptRef = kept && referenceOf(kept);
      if (kept && keptRef) {
        // An earlier attempt stored it and died before the rest: nothing is downloaded again.
        await record(db, payload, { status: "stored", video: summary(keptRef, kept) });
        return { status: "COMPLETED" };
      }
      if (RUN_GOING.has(runStatus)) {
        if (nowSeconds() >= payload.deadline_at)
          return fail(`run ${origin.run_id} had not ended by the job's deadline`);
        return { status: "FAILED", error: `waits for run ${origin.run_id} to end`, waitSeconds: RUN_WAIT_SECONDS };
      }
      try {
        const task = await api.query(taskId);
        if (WORKING.has(task.status)) {
          if (nowSeconds() >= payload.deadline_at)
            return fail(`the video was still ${task.status} when the job's deadline passed`);
          return { status: "FAILED", error: `minimax task ${taskId} is ${task.status}`, waitSeconds: opts.pollSeconds };
        }
        if (task.status === "Fail")
          return fail(
            `minimax could not make the video${task.message && task.message !== "success" ? `: ${task.message}` : ""}`,
          );
        if (task.status !== "Success" || !task.fileId)
          return {
            status: "FAILED",
            error: `minimax reported the task as ${task.status || "unknown"}`,
            retryable: true,
          };
        const file = await api.retrieve(task.fileId);
        const bytes = await api.download(file.downloadUrl, opts.maxVideoBytes);
        const ref = await media.store(bytes, {
          mimeType: "video/mp4",
          mediaType: "video",
          mediaId,
          filename: file.filename ?? `${taskId}.mp4`,
        });
        const video: MediaRecord = {
          id: mediaId,
          mime_type: "video/mp4",
          format: "mp4",
          ...(task.width ? { width: task.width } : {}),
          ...(task.height ? { height: task.height } : {}),
          media_reference: ref,
        };
        try {
          await db.upsertRun(
            { ...run.run_data, videos: [...((run.run_data.videos as MediaRecord[] | undefined) ?? []), video] },
            { expectStatus: [runStatus] },
          );
        } catch (error) {
          // The run moved on (continued) since it was read: look again once it has settled.
          if (error instanceof StatusConflictError)
            return { status: "FAILED", error: `run ${origin.run_id} changed meanwhile`, waitSeconds: RUN_WAIT_SECONDS };
          throw error;
        }
        await record(db, payload, { status: "stored", video: summary(ref, video) });
        return { status: "COMPLETED" };
      } catch (error) {
        const message = publicError(error, `job ${job.id}`).message;
        // A refusal no retry gets past, or the last attempt: the outcome is recorded for the status tool.
        if ((error instanceof MiniMaxApiError && !error.retryable) || job.attempt >= job.max_attempts)
          return fail(message);
        return { status: "FAILED", error: message, retryable: true };
      }
    },
  };
}

/** The payload, if it is one this job can run. */
function payloadOf(raw: Record<string, unknown>): MiniMaxVideoJobPayload | null {
  const p = raw as Partial<MiniMaxVideoJobPayload>;
  if (typeof p.task_id !== "string" || !p.task_id) return null;
  if (!p.origin || typeof p.origin.run_id !== "string" || typeof p.origin.session_id !== "string") return null;
  if (typeof p.deadline_at !== "number") return null;
  return p as MiniMaxVideoJobPayload;
}

function summary(ref: MediaReference, record: MediaRecord): NonNullable<MiniMaxVideoResult["video"]> {
  return {
    media_id: ref.media_id,
    storage_key: ref.storage_key,
    mime_type: ref.mime_type,
    size: ref.size,
    content_hash: ref.content_hash,
    ...(typeof record.width === "number" ? { width: record.width } : {}),
    ...(typeof record.height === "number" ? { height: record.height } : {}),
  };
}

/**
 * The task's outcome in the session's state, merged with whatever else writes it (a run's
 * changes to other keys are kept). A session deleted meanwhile records nothing.
 */
async function record(
  db: Db,
  payload: MiniMaxVideoJobPayload,
  outcome: Pick<MiniMaxVideoResult, "status" | "video" | "error">,
): Promise<void> {
  const value: MiniMaxVideoResult = {
    ...outcome,
    task_id: payload.task_id,
    run_id: payload.origin.run_id,
    updated_at: nowSeconds(),
  };
  await db.updateSessionState(payload.origin.session_id, [
    { op: "set", path: [MINIMAX_VIDEOS_STATE_KEY, payload.task_id], value },
  ]);
}
