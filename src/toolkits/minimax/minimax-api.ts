import { readCapped } from "../../read-capped.js";
import { httpJson } from "../http-json.js";
import { UpstreamError } from "../upstream-error.js";
import { MiniMaxApiError } from "./minimax-api-error.js";

type Json = Record<string, unknown>;

/** base_resp codes another try may get past: unknown error, timeout, rate limit, token limit. */
const RETRYABLE_CODES = new Set([1000, 1001, 1002, 1039]);

export interface MiniMaxApiOptions {
  apiKey: string;
  /** default https://api.minimax.io (mainland China: https://api.minimaxi.com) */
  baseUrl?: string;
  /** per API request, in milliseconds (default 30 s) */
  timeoutMs?: number;
  /** per video download, in milliseconds (default 120 s) */
  downloadTimeoutMs?: number;
  fetch?: typeof fetch;
}

/** The largest JSON answer read from the API (its answers are a few hundred bytes). */
const MAX_JSON_BYTES = 256 * 1024;

/** The MP4 box every MP4 file opens with, after its 4-byte size: what tells a video from an error page. */
const FTYP = [0x66, 0x74, 0x79, 0x70];

/**
 * MiniMax's video API over fetch: submit a generation task, query it, look up its file and
 * download the bytes. `base_resp.status_code` other than 0 is an error whatever the HTTP status.
 * The key goes only to the API, never to the download URL, and never into a message.
 */
export class MiniMaxApi {
  private readonly base: string;

  constructor(private readonly opts: MiniMaxApiOptions) {
    if (!opts.apiKey) throw new TypeError("MiniMax needs an apiKey");
    this.base = (opts.baseUrl ?? "https://api.minimax.io").replace(/\/+$/, "");
  }

  /** Submits a generation (`POST /v1/video_generation`); the task's id. */
  async submit(body: Json, signal?: AbortSignal): Promise<string> {
    const out = await this.call("/v1/video_generation", { method: "POST", body }, signal);
    if (typeof out.task_id !== "string" || !out.task_id) throw new UpstreamError("minimax answered without a task_id");
    return out.task_id;
  }

  /** A task's state (`GET /v1/query/video_generation`): its status, and its file once it succeeded. */
  async query(
    taskId: string,
    signal?: AbortSignal,
  ): Promise<{ status: string; fileId?: string; width?: number; height?: number; message?: string }> {
    const out = await this.call(`/v1/query/video_generation?${new URLSearchParams({ task_id: taskId })}`, {}, signal);
    const fileId = out.file_id === undefined || out.file_id === null || out.file_id === "" ? undefined : out.file_id;
    return {
      status: String(out.status ?? ""),
      ...(fileId !== undefined ? { fileId: String(fileId) } : {}),
      ...(typeof out.video_width === "number" ? { width: out.video_width } : {}),
      ...(typeof out.video_height === "number" ? { height: out.video_height } : {}),
      ...(typeof (out.base_resp as Json | undefined)?.status_msg === "string"
        ? { message: this.scrub(String((out.base_resp as Json).status_msg)) }
        : {}),
    };
  }

  /** Where a file can be downloaded (`GET /v1/files/retrieve`). */
  async retrieve(fileId: string, signal?: AbortSignal): Promise<{ downloadUrl: string; filename?: string }> {
    const out = await this.call(`/v1/files/retrieve?${new URLSearchParams({ file_id: fileId })}`, {}, signal);
    const file = out.file as Json | undefined;
    if (!file || typeof file.download_url !== "string" || !file.download_url)
      throw new UpstreamError(`minimax answered no download_url for file ${fileId}`);
    return {
      downloadUrl: file.download_url,
      ...(typeof file.filename === "string" ? { filename: file.filename } : {}),
    };
  }

  /**
   * The video's bytes, at most `maxBytes` (refused before reading when the declared length is
   * larger, else as soon as the body passes it). Only https; the answer must be a video (or
   * untyped bytes) and start as an MP4 does.
   */
  async download(url: string, maxBytes: number, signal?: AbortSignal): Promise<Uint8Array> {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      throw new UpstreamError("minimax gave a download URL that is not a URL");
    }
    if (target.protocol !== "https:") throw new UpstreamError("minimax gave a download URL that is not https");
    const timeoutMs = this.opts.downloadTimeoutMs ?? 120_000;
    const deadline = AbortSignal.timeout(timeoutMs);
    let res: Response;
    let bytes: Uint8Array | null;
    try {
      res = await (this.opts.fetch ?? globalThis.fetch)(target, {
        signal: signal ? AbortSignal.any([deadline, signal]) : deadline,
      });
      if (!res.ok) {
        await res.body?.cancel();
        throw new UpstreamError(`the video download answered ${res.status}`);
      }
      const type = (res.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
      if (type && !type.startsWith("video/") && type !== "application/octet-stream" && type !== "binary/octet-stream") {
        await res.body?.cancel();
        throw new UpstreamError(`the video download is ${type}, not a video`);
      }
      bytes = await readCapped(res, maxBytes);
    } catch (error) {
      if (error instanceof UpstreamError || signal?.aborted) throw error;
      if (deadline.aborted) throw new UpstreamError(`the video download did not finish within ${timeoutMs} ms`);
      throw new UpstreamError(`the video download failed: ${(error as Error).message}`, { cause: error });
    }
    if (!bytes) throw new MiniMaxApiError(`the video is larger than ${maxBytes} bytes`, false);
    if (bytes.byteLength < 8 || FTYP.some((b, i) => bytes[4 + i] !== b))
      throw new UpstreamError("the video download is not an MP4 file");
    return bytes;
  }

  private async call(path: string, init: { method?: string; body?: Json }, signal?: AbortSignal): Promise<Json> {
    let out: unknown;
    try {
      out = await httpJson(
        `${this.base}${path}`,
        {
          method: init.method ?? "GET",
          headers: {
            authorization: `Bearer ${this.opts.apiKey}`,
            ...(init.body ? { "content-type": "application/json" } : {}),
          },
          ...(init.body ? { body: JSON.stringify(init.body) } : {}),
        },
        {
          service: "minimax",
          timeoutMs: this.opts.timeoutMs ?? 30_000,
          maxBytes: MAX_JSON_BYTES,
          fetch: this.opts.fetch,
          signal,
        },
      );
    } catch (error) {
      if (error instanceof UpstreamError) throw new UpstreamError(this.scrub(error.message));
      throw error;
    }
    if (!out || typeof out !== "object" || Array.isArray(out))
      throw new UpstreamError("minimax answered no JSON object");
    const base = (out as Json).base_resp as Json | undefined;
    const code = Number(base?.status_code ?? 0);
    if (code !== 0) {
      const msg = typeof base?.status_msg === "string" && base.status_msg ? `: ${this.scrub(base.status_msg)}` : "";
      throw new MiniMaxApiError(`minimax refused the request (status_code ${code})${msg}`, RETRYABLE_CODES.has(code));
    }
    return out as Json;
  }

  /** A message without the key in it, whatever an upstream echoed back. */
  private scrub(text: string): string {
    return text.split(this.opts.apiKey).join("[redacted]").slice(0, 300);
  }
}
