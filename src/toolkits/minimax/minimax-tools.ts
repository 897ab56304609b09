import { z } from "zod";
import { tool, Toolkit, type Tool } from "../../tools/tool.js";
import { nowSeconds } from "../../time.js";
import { MiniMaxApi } from "./minimax-api.js";
import {
  MINIMAX_VIDEO_JOB_TYPE,
  MINIMAX_VIDEOS_STATE_KEY,
  minimaxVideoJob,
  type MiniMaxVideoJobPayload,
  type MiniMaxVideoResult,
} from "./minimax-video-job.js";

/**
 * The video models, each with the durations (seconds) and resolutions MiniMax accepts for it,
 * and whether a first frame is required, optional or refused.
 */
const MODELS = {
  "MiniMax-Hailuo-2.3": { durations: [6, 10], resolutions: ["768P", "1080P"], firstFrame: "optional" },
  "MiniMax-Hailuo-2.3-Fast": { durations: [6, 10], resolutions: ["768P", "1080P"], firstFrame: "required" },
  "MiniMax-Hailuo-02": { durations: [6, 10], resolutions: ["512P", "768P", "1080P"], firstFrame: "optional" },
  "T2V-01-Director": { durations: [6], resolutions: ["720P"], firstFrame: "none" },
  "T2V-01": { durations: [6], resolutions: ["720P"], firstFrame: "none" },
  "I2V-01-Director": { durations: [6], resolutions: ["720P"], firstFrame: "required" },
  "I2V-01-live": { durations: [6], resolutions: ["720P"], firstFrame: "required" },
  "I2V-01": { durations: [6], resolutions: ["720P"], firstFrame: "required" },
} as const;

export type MiniMaxVideoModel = keyof typeof MODELS;
const MODEL_NAMES = Object.keys(MODELS) as [MiniMaxVideoModel, ...MiniMaxVideoModel[]];

export interface MiniMaxToolsOptions {
  /** a MiniMax API key (MINIMAX_API_KEY) */
  apiKey: string;
  /** default https://api.minimax.io (mainland China: https://api.minimaxi.com) */
  baseUrl?: string;
  /** the model when the call names none (default MiniMax-Hailuo-02) */
  model?: MiniMaxVideoModel;
  /** the models a call may name (default every one this toolkit knows) */
  models?: MiniMaxVideoModel[];
  /** seconds between two looks at a task still being made (default 15) */
  pollSeconds?: number;
  /** a task not done this long after it was submitted is given up (default 1 hour) */
  deadlineSeconds?: number;
  /** largest video downloaded, in bytes (default 50 MiB) */
  maxVideoBytes?: number;
  /** per API request, in milliseconds (default 30 s) */
  timeoutMs?: number;
  /** per video download, in milliseconds (default 120 s) */
  downloadTimeoutMs?: number;
  fetch?: typeof fetch;
  include?: string[];
  exclude?: string[];
}

/** What a task id looks like (MiniMax's are digits): checked before it goes into a URL. */
const TASK_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * MiniMax video generation (Hailuo): `generate_video` submits a task and hands the waiting to
 * the durable queue, whose job polls it, downloads the MP4 and stores it in the deployment's
 * media storage, adding it to the submitting run's `videos` and recording the outcome in the
 * session's state (`minimax_videos[task_id]`); `get_video_status` reports a task's state and,
 * once stored, where the video is. Videos take minutes, so nothing waits in the run: the agent
 * must be served by an AgentOS with the durable queue (`generate_video` says so otherwise).
 * Arguments (model, duration, resolution, first frame) are checked against what each model
 * accepts before any request; the key goes to MiniMax's API only, never into an answer.
 */
export class MiniMaxTools extends Toolkit {
  constructor(opts: MiniMaxToolsOptions) {
    if (!opts.apiKey) throw new TypeError("MiniMaxTools needs an apiKey");
    const api = new MiniMaxApi({
      apiKey: opts.apiKey,
      baseUrl: opts.baseUrl,
      timeoutMs: opts.timeoutMs,
      downloadTimeoutMs: opts.downloadTimeoutMs,
      fetch: opts.fetch,
    });
    const allowed = opts.models ?? MODEL_NAMES;
    for (const m of [...allowed, ...(opts.model ? [opts.model] : [])])
      if (!(m in MODELS)) throw new TypeError(`MiniMaxTools does not know the video model ${m}`);
    const defaultModel = opts.model ?? (allowed.includes("MiniMax-Hailuo-02") ? "MiniMax-Hailuo-02" : allowed[0]!);
    if (!allowed.includes(defaultModel)) throw new TypeError(`the default model ${defaultModel} is not among models`);
    const pollSeconds = opts.pollSeconds ?? 15;
    const deadlineSeconds = opts.deadlineSeconds ?? 3600;
    // Whole seconds: the queue's times are epoch seconds.
    if (!Number.isInteger(pollSeconds) || pollSeconds < 1 || !Number.isInteger(deadlineSeconds) || deadlineSeconds < 1)
      throw new TypeError("pollSeconds and deadlineSeconds must be whole numbers of seconds, at least 1");

    const videoArgs = z
      .object({
        prompt: z.string().trim().min(1).max(2000).describe("What the video shows: scene, motion, camera, style"),
        model: z
          .enum(allowed as [MiniMaxVideoModel, ...MiniMaxVideoModel[]])
          .optional()
          .describe(`The video model (default ${defaultModel})`),
        duration: z
          .union([z.literal(6), z.literal(10)])
          .optional()
          .describe("Seconds of video: 6 or 10 (10 only at 768P or 512P, on Hailuo models)"),
        resolution: z
          .enum(["512P", "720P", "768P", "1080P"])
          .optional()
          .describe(
            "Hailuo models: 768P (default) or 1080P (6 s only), 512P with a first frame on Hailuo-02; 01 models: 720P",
          ),
        first_frame_image: z
          .url({ protocol: /^https$/ })
          .max(2048)
          .optional()
          .describe("A public https URL of a JPG/PNG image the video starts from"),
      })
      .superRefine((args, ctx) => {
        const model = args.model ?? defaultModel;
        const spec = MODELS[model];
        const issue = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
        if (args.duration !== undefined && !(spec.durations as readonly number[]).includes(args.duration))
          issue("duration", `${model} makes videos of ${spec.durations.join(" or ")} seconds`);
        if (args.resolution !== undefined && !(spec.resolutions as readonly string[]).includes(args.resolution))
          issue("resolution", `${model} makes ${spec.resolutions.join(", ")} videos`);
        if (args.resolution === "1080P" && args.duration === 10) issue("duration", "1080P videos are 6 seconds long");
        if (args.resolution === "512P" && !args.first_frame_image)
          issue("resolution", "512P needs a first_frame_image");
        if (spec.firstFrame === "required" && !args.first_frame_image)
          issue("first_frame_image", `${model} makes videos from a first frame: give first_frame_image`);
        if (spec.firstFrame === "none" && args.first_frame_image)
          issue("first_frame_image", `${model} makes videos from text only`);
      });

    const tools: Tool[] = [
      tool({
        name: "generate_video",
        description:
          "Start generating a video with MiniMax from a text prompt (optionally from a first frame image). " +
          "It takes minutes: this returns a task_id at once, and the video is attached to this run's videos when ready. " +
          "Use get_video_status with the task_id to check on it.",
        parameters: videoArgs,
        execute: async (args, ctx) => {
          // Checked before submitting: a task nobody would fetch is paid for and lost.
          if (!ctx.enqueueJob)
            throw new Error(
              "generate_video needs the durable queue to fetch the video when it is ready: serve the agent from an AgentOS with queue: { durable: true } and a database",
            );
          const model = args.model ?? defaultModel;
          const taskId = await api.submit(
            {
              model,
              prompt: args.prompt,
              ...(args.duration !== undefined ? { duration: args.duration } : {}),
              ...(args.resolution !== undefined ? { resolution: args.resolution } : {}),
              ...(args.first_frame_image !== undefined ? { first_frame_image: args.first_frame_image } : {}),
            },
            ctx.signal,
          );
          const payload: MiniMaxVideoJobPayload = {
            task_id: taskId,
            origin: {
              run_id: ctx.runId,
              session_id: ctx.sessionId,
              ...(ctx.toolCallId ? { tool_call_id: ctx.toolCallId } : {}),
            },
            deadline_at: nowSeconds() + deadlineSeconds,
          };
          let jobId: string;
          try {
            ({ jobId } = await ctx.enqueueJob({
              jobType: MINIMAX_VIDEO_JOB_TYPE,
              payload: payload as unknown as Record<string, unknown>,
              idempotencyKey: `${MINIMAX_VIDEO_JOB_TYPE}:${taskId}`,
            }));
          } catch (error) {
            throw new Error(
              `MiniMax accepted the video as task ${taskId}, but its download could not be queued: ${(error as Error).message}`,
            );
          }
          return {
            task_id: taskId,
            job_id: jobId,
            model,
            status: "submitted",
            message:
              "The video is being generated; this usually takes a few minutes. When it is ready it is stored and " +
              "attached to this run's videos; call get_video_status with this task_id to check on it.",
          };
        },
      }),
      tool({
        name: "get_video_status",
        description:
          "The state of a MiniMax video task started with generate_video: still being made, stored (with where the video is), or failed (with why).",
        parameters: z.object({
          task_id: z.string().regex(TASK_ID, "a task_id returned by generate_video").describe("The task_id"),
        }),
        execute: async ({ task_id }, ctx) => {
          const recorded = (
            ctx.sessionState[MINIMAX_VIDEOS_STATE_KEY] as Record<string, MiniMaxVideoResult> | undefined
          )?.[task_id];
          if (recorded?.status === "stored" && recorded.video)
            return {
              task_id,
              status: "stored",
              run_id: recorded.run_id,
              video: recorded.video,
              url_path: `/sessions/${encodeURIComponent(ctx.sessionId)}/media/${recorded.video.storage_key}`,
            };
          if (recorded?.status === "failed") return { task_id, status: "failed", error: recorded.error };
          // Not recorded in this session (yet): MiniMax says where the task is.
          const task = await api.query(task_id, ctx.signal);
          return {
            task_id,
            status: task.status,
            message:
              task.status === "Success"
                ? "MiniMax has made the video; the background job is storing it and attaches it to the run that asked for it."
                : task.status === "Fail"
                  ? `MiniMax could not make the video${task.message && task.message !== "success" ? `: ${task.message}` : ""}.`
                  : "MiniMax is still making the video; it is attached to the run that asked for it when ready.",
          };
        },
      }),
    ];
    super({
      id: "minimax",
      name: "minimax",
      tools,
      include: opts.include,
      exclude: opts.exclude,
      jobHandlers: [minimaxVideoJob(api, { pollSeconds, maxVideoBytes: opts.maxVideoBytes ?? 50 * 1024 * 1024 })],
    });
  }
}
