import { base64ToBytes, bytesToBase64 } from "../base64.js";
import { AgnoError, errorMessage } from "../errors.js";
import type { Db } from "../db/port.js";
import type { ContentInput } from "../knowledge/content.js";
import type { Knowledge } from "../knowledge/knowledge.js";
import type { MediaReference, MediaStorage } from "../offload/media-storage.js";
import { publicError } from "../public-error.js";
import type { Outcome } from "./executor.js";
import type { EnqueueJobInput, JobRecord, JobStore } from "./types.js";
import { jobInput, type JobLimits } from "./job-input.js";

/** The `job_type` of a knowledge ingestion on the durable queue. */
export const KNOWLEDGE_JOB_TYPE = "knowledge_ingestion";

/**
 * What a knowledge ingestion job carries (JSON): the knowledge base and the content row it fills,
 * and the content's input without its bytes. An uploaded file's bytes are in the media storage
 * (`file`), or inline as base64 (`data`) when the deployment has none.
 */
export interface KnowledgeJobPayload {
  knowledge_id: string;
  content_id: string;
  input: Omit<ContentInput, "bytes" | "signal" | "id">;
  file?: MediaReference;
  data?: string;
}

/** Where the bytes of an upload are kept until (and after) the job reads them. */
export async function keepUpload(
  bytes: Uint8Array,
  opts: { mimeType: string; fileName?: string },
  storage: MediaStorage | undefined,
): Promise<Pick<KnowledgeJobPayload, "file" | "data">> {
  if (storage)
    return {
      file: await storage.store(bytes, { mimeType: opts.mimeType, mediaType: "file", filename: opts.fileName }),
    };
  return { data: bytesToBase64(bytes) };
}

/** The job that ingests `payload`'s content; its key makes a repeat of the same pending content a no-op. */
export function knowledgeJobInput(
  payload: KnowledgeJobPayload,
  opts: JobLimits & { createdAt: number },
): EnqueueJobInput {
  return jobInput(
    KNOWLEDGE_JOB_TYPE,
    { type: "knowledge", id: payload.knowledge_id },
    payload,
    `knowledge:${payload.knowledge_id}:${payload.content_id}:${opts.createdAt}`,
    opts,
  );
}

/** Enqueues an ingestion and wakes the queue (only when the job is new). */
export async function enqueueKnowledgeJob(
  target: { jobs: Pick<JobStore, "enqueueJob">; queue: { wake(): Promise<void> } },
  input: EnqueueJobInput,
): Promise<JobRecord> {
  const { job, created } = await target.jobs.enqueueJob(input);
  if (created) await target.queue.wake();
  return job;
}

/**
 * Runs a knowledge ingestion job: reads the upload back, then `Knowledge.process`, which moves
 * the content row from processing to completed, or to failed with the reason. A failure of the
 * content itself (an unsupported type, a refused URL, a bad file: a 4xx AgnoError) is final; any
 * other (the embedder or the database failing) is retried while attempts remain, the row showing
 * the last failure meanwhile.
 */
export async function executeKnowledgeJob(
  job: JobRecord,
  knowledge: readonly Knowledge[],
  db: Db,
  media: MediaStorage | undefined,
): Promise<Outcome> {
  const payload = job.payload as unknown as KnowledgeJobPayload;
  const kb = knowledge.find((k) => k.id === payload.knowledge_id);
  if (!kb)
    return { status: "FAILED", error: `knowledge base ${payload.knowledge_id} is not served by this deployment` };
  const bound = kb.withDb(db);
  let bytes: Uint8Array | undefined;
  try {
    if (payload.file) {
      if (!media)
        throw new Error(`the upload is in ${payload.file.storage_backend} storage, which this queue has none of`);
      bytes = await media.read(payload.file);
    } else if (payload.data !== undefined) {
      bytes = base64ToBytes(payload.data);
    }
  } catch (error) {
    return { status: "FAILED", error: `the upload could not be read: ${publicError(error, `job ${job.id}`).message}` };
  }
  try {
    const record = await bound.process(payload.content_id, {
      ...payload.input,
      id: payload.content_id,
      ...(bytes ? { bytes } : {}),
    });
    if (record.status === "failed")
      return { status: "FAILED", error: record.status_message ?? "ingestion failed", retryable: false };
    return { status: "COMPLETED" };
  } catch (error) {
    const final = error instanceof AgnoError && error.status >= 400 && error.status < 500;
    return {
      status: "FAILED",
      error: publicError(error, `job ${job.id}`).message ?? errorMessage(error),
      retryable: !final,
    };
  }
}
