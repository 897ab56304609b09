import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/agent.js";
import { MemoryDb } from "../../src/db/memory/index.js";
import type { MediaRecord } from "../../src/models/message.js";
import { LocalMediaStorage } from "../../src/offload/media-local-storage.js";
import type { MediaReference } from "../../src/offload/media-storage.js";
import { AgentOS } from "../../src/os/agent-os.js";
import { jobHandlersOf } from "../../src/queue/job-handlers-of.js";
import { MiniMaxTools, type MiniMaxToolsOptions } from "../../src/toolkits/minimax/index.js";
import { scriptedModel } from "../support/agent-kit.js";
import { drainQueue } from "../support/drain-queue.js";
import type { Turn } from "../support/model-script.js";
import { callThroughAgent, fakeServer, routedFetch, type FakeServer } from "../support/toolkit-kit.js";

const KEY = "mm-secret-key-0123456789";

/** An MP4's opening (its ftyp box) followed by `size - 12` random bytes. */
function mp4(size: number): Uint8Array {
  const bytes = crypto.getRandomValues(new Uint8Array(size));
  bytes.set([0, 0, 0, 0x18, 0x66, 0x74, 0x79, 0x70, 0x69, 0x73, 0x6f, 0x6d]);
  return bytes;
}

/** What the fake MiniMax does with a task: the statuses its queries answer in turn, and its video. */
interface FakeTask {
  statuses: string[];
  video: Uint8Array;
  failMsg?: string;
}

let minimax: FakeServer;
let cdn: FakeServer;
const tasks = new Map<string, FakeTask>();
/** the id the next submitted task gets */
let nextTaskId = 1000;
/** what a prompt's task does (by a word in the prompt) */
const plan = (prompt: string): FakeTask => {
  if (prompt.includes("failing")) return { statuses: ["Queueing", "Fail"], video: mp4(64), failMsg: "video sensitive" };
  if (prompt.includes("huge")) return { statuses: ["Success"], video: mp4(64 * 1024) };
  return { statuses: ["Preparing", "Queueing", "Processing", "Success"], video: mp4(4096) };
};

beforeAll(async () => {
  // MiniMax's video API: Bearer key; every answer carries base_resp, whose status_code other than 0 is an error under HTTP 200.
  minimax = await fakeServer((req, res) => {
    res.setHeader("content-type", "application/json");
    const send = (body: Record<string, unknown>, code = 0, msg = "success") =>
      res.end(JSON.stringify({ ...body, base_resp: { status_code: code, status_msg: msg } }));
    if (req.headers.authorization !== `Bearer ${KEY}`)
      return send({}, 1004, "login fail: Please carry the API secret key");
    const route = `${req.method} ${req.path}`;
    if (route === "POST /v1/video_generation") {
      const body = JSON.parse(req.body) as { prompt: string };
      if (body.prompt.includes("forbidden")) return send({ task_id: "" }, 1026, "input new_sensitive");
      const id = String(nextTaskId++);
      tasks.set(id, plan(body.prompt));
      return send({ task_id: id });
    }
    if (route === "GET /v1/query/video_generation") {
      const id = req.query.get("task_id")!;
      const task = tasks.get(id);
      if (!task) return send({}, 2013, "invalid params, task not found");
      const status = task.statuses.length > 1 ? task.statuses.shift()! : task.statuses[0]!;
      if (status === "Fail") return send({ task_id: id, status, file_id: "" }, 0, task.failMsg);
      return send({
        task_id: id,
        status,
        file_id: status === "Success" ? `f${id}` : "",
        ...(status === "Success" ? { video_width: 1366, video_height: 768 } : {}),
      });
    }
    if (route === "GET /v1/files/retrieve") {
      const id = req.query.get("file_id")!.slice(1);
      return send({
        file: {
          file_id: `f${id}`,
          bytes: tasks.get(id)!.video.byteLength,
          created_at: 1700469398,
          filename: "output_aigc.mp4",
          purpose: "video_generation",
          download_url: `https://cdn.minimax.test/videos/${id}.mp4?Expires=1&Signature=abc`,
        },
      });
    }
    res.statusCode = 404;
    return send({}, 404, "not found");
  });
  // Where the files are: a signed URL on a CDN, no key needed.
  cdn = await fakeServer((req, res) => {
    const id = /^\/videos\/(\d+)\.mp4$/.exec(req.path)?.[1];
    const task = id ? tasks.get(id) : undefined;
    if (!task) return ((res.statusCode = 404), res.end("no such file"));
    res.setHeader("content-type", "video/mp4");
    res.setHeader("content-length", String(task.video.byteLength));
    res.end(Buffer.from(task.video));
  });
});
afterAll(async () => {
  await minimax.close();
  await cdn.close();
});

const viaRoutes = () => routedFetch({ "api.minimax.io": minimax.url, "cdn.minimax.test": cdn.url });

/** A deployment as a user builds one: an AgentOS with the durable queue and media storage, its agent using MiniMaxTools. */
async function deployment(turns: Turn[], extra: Partial<MiniMaxToolsOptions> = {}) {
  const db = new MemoryDb();
  const dir = await mkdtemp(join(tmpdir(), "agno-minimax-"));
  const media = new LocalMediaStorage({ directory: dir });
  const { model } = await scriptedModel(turns);
  const tools = new MiniMaxTools({ apiKey: KEY, fetch: viaRoutes(), pollSeconds: 1, ...extra });
  const os = new AgentOS({
    agents: [new Agent({ id: "director", model, tools: [tools], db })],
    queue: { durable: true },
    mediaStorage: media,
    auth: { mode: "none" },
  });
  const agent = os.agents[0]!;
  const drain = () => drainQueue(db, { components: os.agents, handlers: os.jobHandlers, media });
  const cleanup = () => rm(dir, { recursive: true, force: true });
  return { db, dir, media, os, agent, drain, cleanup };
}

/** Everything a user or the model can read of the deployment: none of it may hold the key. */
async function everythingStored(db: MemoryDb, sessionId: string): Promise<string> {
  const session = await db.getSession(sessionId);
  const jobs = await db.jobs.listJobs({ limit: 100, page: 1 });
  return JSON.stringify([session, jobs]);
}

describe("MiniMaxTools", () => {
  it("a run submits the video; the queue's job polls it through Queueing and Processing, stores the MP4 and attaches it to the run", async () => {
    const taskId = String(nextTaskId);
    const d = await deployment([
      { toolCalls: [{ name: "generate_video", arguments: { prompt: "a cat surfing at dawn", duration: 6 } }] },
      { text: "Your video is on its way." },
      { toolCalls: [{ name: "get_video_status", arguments: { task_id: taskId } }] },
      { text: "Here it is." },
    ]);
    try {
      const first = await d.agent.run("Make me a video of a cat surfing", { userId: "ann", sessionId: "s1" });
      expect(first.status).toBe("COMPLETED");
      const call = first.tools![0]!;
      expect(call.tool_call_error).toBeFalsy();
      const submitted = JSON.parse(call.result!) as Record<string, unknown>;
      expect(submitted).toMatchObject({ task_id: taskId, status: "submitted", model: "MiniMax-Hailuo-02" });
      expect(JSON.parse(minimax.requests.find((r) => r.method === "POST")!.body)).toEqual({
        model: "MiniMax-Hailuo-02",
        prompt: "a cat surfing at dawn",
        duration: 6,
      });
      const job = await d.db.jobs.getJob(String(submitted.job_id));
      expect(job).toMatchObject({
        job_type: "minimax_video",
        component_type: "agent",
        component_id: "director",
        user_id: "ann",
        status: "PENDING",
        payload: { task_id: taskId, origin: { run_id: first.run_id, session_id: "s1" } },
      });

      const queriesBefore = minimax.requests.filter((r) => r.path === "/v1/query/video_generation").length;
      await d.drain();
      const done = (await d.db.jobs.getJob(job!.id))!;
      expect(done.status).toBe("COMPLETED");
      // Four looks (Preparing, Queueing, Processing, Success), and none used up an attempt.
      expect(minimax.requests.filter((r) => r.path === "/v1/query/video_generation").length - queriesBefore).toBe(4);
      expect(done.attempt).toBe(1);

      const run = (await d.db.getRun(first.run_id))!;
      const videos = run.run_data.videos as MediaRecord[];
      expect(videos).toHaveLength(1);
      expect(videos[0]).toMatchObject({ id: `minimax-${taskId}`, mime_type: "video/mp4", width: 1366, height: 768 });
      const ref = videos[0]!.media_reference as MediaReference;
      expect(ref).toMatchObject({ media_type: "video", mime_type: "video/mp4", size: 4096 });
      expect(Buffer.from(await d.media.read(ref)).equals(Buffer.from(tasks.get(taskId)!.video))).toBe(true);
      // The download went to the CDN without the key.
      const download = cdn.requests.at(-1)!;
      expect(download.path).toBe(`/videos/${taskId}.mp4`);
      expect(download.headers.authorization).toBeUndefined();

      // The session's media route serves it to whoever may read the session.
      const served = await d.os.fetch(new Request(`http://os/sessions/s1/media/${ref.storage_key}`), { dbs: [d.db] });
      expect(served.status).toBe(200);
      expect(Buffer.from(await served.arrayBuffer()).equals(Buffer.from(tasks.get(taskId)!.video))).toBe(true);

      // A later run of the session: the status tool reads the outcome the job recorded.
      const later = await d.agent.run("Is my video ready?", { userId: "ann", sessionId: "s1" });
      const status = JSON.parse(later.tools![0]!.result!) as Record<string, unknown>;
      expect(status).toMatchObject({
        task_id: taskId,
        status: "stored",
        run_id: first.run_id,
        video: { storage_key: ref.storage_key, mime_type: "video/mp4", size: 4096 },
        url_path: `/sessions/s1/media/${ref.storage_key}`,
      });
      expect(await everythingStored(d.db, "s1")).not.toContain(KEY);
    } finally {
      await d.cleanup();
    }
  });

  it("a redelivered job (its worker died after storing) neither downloads again nor adds a second video", async () => {
    const d = await deployment([
      { toolCalls: [{ name: "generate_video", arguments: { prompt: "waves at night" } }] },
      { text: "ok" },
    ]);
    try {
      const out = await d.agent.run("waves", { userId: "ann", sessionId: "s2" });
      await d.drain();
      const jobId = (JSON.parse(out.tools![0]!.result!) as { job_id: string }).job_id;
      const job = (await d.db.jobs.getJob(jobId))!;
      expect(job.status).toBe("COMPLETED");
      const downloads = cdn.requests.length;
      const queries = minimax.requests.length;
      const files = await readdir(d.dir, { recursive: true });
      // The attempt again, as a claim after a crash would run it.
      const again = await d.os.jobHandlers[0]!.execute(job, {
        db: d.db,
        lease: { id: job.id, attempt: job.attempt, workerId: "W2" },
        media: d.media,
      });
      expect(again).toEqual({ status: "COMPLETED" });
      expect(cdn.requests.length).toBe(downloads);
      expect(minimax.requests.length).toBe(queries);
      const videos = (await d.db.getRun(out.run_id))!.run_data.videos as MediaRecord[];
      expect(videos).toHaveLength(1);
      expect(await readdir(d.dir, { recursive: true })).toEqual(files);
    } finally {
      await d.cleanup();
    }
  });

  it("a task MiniMax fails is recorded with its reason; the status tool reports it", async () => {
    const taskId = String(nextTaskId);
    const d = await deployment([
      { toolCalls: [{ name: "generate_video", arguments: { prompt: "a failing scene" } }] },
      { text: "submitted" },
      { toolCalls: [{ name: "get_video_status", arguments: { task_id: taskId } }] },
      { text: "It failed." },
    ]);
    try {
      const out = await d.agent.run("go", { userId: "ann", sessionId: "s3" });
      const jobId = (JSON.parse(out.tools![0]!.result!) as { job_id: string }).job_id;
      await d.drain();
      const job = (await d.db.jobs.getJob(jobId))!;
      expect(job).toMatchObject({ status: "FAILED", error: "minimax could not make the video: video sensitive" });
      expect((await d.db.getRun(out.run_id))!.run_data.videos).toBeUndefined();
      const state = (await d.db.getSession("s3"))!.record.session_data?.session_state as Record<string, unknown>;
      expect(state.minimax_videos).toMatchObject({
        [taskId]: { status: "failed", run_id: out.run_id, error: "minimax could not make the video: video sensitive" },
      });
      const later = await d.agent.run("status?", { userId: "ann", sessionId: "s3" });
      expect(JSON.parse(later.tools![0]!.result!)).toEqual({
        task_id: taskId,
        status: "failed",
        error: "minimax could not make the video: video sensitive",
      });
    } finally {
      await d.cleanup();
    }
  });

  it("a refusal under HTTP 200 (base_resp.status_code) is the tool error the model reads; nothing is queued", async () => {
    const d = await deployment([
      { toolCalls: [{ name: "generate_video", arguments: { prompt: "something forbidden" } }] },
      { text: "Sorry." },
    ]);
    try {
      const out = await d.agent.run("go", { userId: "ann", sessionId: "s4" });
      expect(out.tools![0]).toMatchObject({ tool_call_error: true });
      expect(out.tools![0]!.result).toMatch(/minimax refused the request \(status_code 1026\): input new_sensitive/);
      expect((await d.db.jobs.queueStats()).pending).toBe(0);
      // A wrong key is refused the same way, and the message never carries a key.
      const wrong = await callThroughAgent(
        [new MiniMaxTools({ apiKey: "wrong-key", fetch: viaRoutes() })],
        "get_video_status",
        { task_id: "1" },
      );
      expect(wrong.toolMessage).toMatch(/status_code 1004/);
      expect(wrong.toolMessage).not.toContain("wrong-key");
    } finally {
      await d.cleanup();
    }
  });

  it("refuses bad arguments before any request, and generate_video without a durable queue before submitting", async () => {
    const before = minimax.requests.length;
    const tools = () => new MiniMaxTools({ apiKey: KEY, fetch: viaRoutes() });
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ["generate_video", { prompt: "" }, /prompt/],
      ["generate_video", { prompt: "x", model: "Sora-2" }, /model/],
      ["generate_video", { prompt: "x", duration: 8 }, /duration/],
      ["generate_video", { prompt: "x", model: "T2V-01", duration: 10 }, /T2V-01 makes videos of 6 seconds/],
      ["generate_video", { prompt: "x", resolution: "1080P", duration: 10 }, /1080P videos are 6 seconds long/],
      ["generate_video", { prompt: "x", model: "T2V-01", resolution: "768P" }, /T2V-01 makes 720P videos/],
      ["generate_video", { prompt: "x", model: "I2V-01" }, /first_frame_image/],
      ["generate_video", { prompt: "x", first_frame_image: "http://example.com/a.png" }, /first_frame_image/],
      ["generate_video", { prompt: "x", resolution: "512P" }, /512P needs a first_frame_image/],
      ["get_video_status", { task_id: "../../v1/files" }, /task_id/],
    ];
    for (const [name, args, message] of cases) {
      const { execution, toolMessage } = await callThroughAgent([tools()], name, args);
      expect(execution.tool_call_error, JSON.stringify(args)).toBe(true);
      expect(toolMessage, JSON.stringify(args)).toMatch(message);
    }
    // Good arguments, but no durable queue to fetch the video: refused before MiniMax is paid for it.
    const unqueued = await callThroughAgent([tools()], "generate_video", { prompt: "a fine scene" });
    expect(unqueued.toolMessage).toMatch(/needs the durable queue/);
    expect(minimax.requests.length).toBe(before);
  });

  it("a video over maxVideoBytes is refused while downloading: nothing stored, the failure recorded", async () => {
    const taskId = String(nextTaskId);
    const d = await deployment(
      [{ toolCalls: [{ name: "generate_video", arguments: { prompt: "a huge video" } }] }, { text: "ok" }],
      { maxVideoBytes: 10_000 },
    );
    try {
      const out = await d.agent.run("go", { userId: "ann", sessionId: "s5" });
      const jobId = (JSON.parse(out.tools![0]!.result!) as { job_id: string }).job_id;
      await d.drain();
      expect(await d.db.jobs.getJob(jobId)).toMatchObject({
        status: "FAILED",
        error: "the video is larger than 10000 bytes",
      });
      expect(await readdir(d.dir, { recursive: true })).toEqual([]);
      expect((await d.db.getRun(out.run_id))!.run_data.videos).toBeUndefined();
      const state = (await d.db.getSession("s5"))!.record.session_data?.session_state as Record<string, unknown>;
      expect(state.minimax_videos).toMatchObject({ [taskId]: { status: "failed" } });
      expect(await everythingStored(d.db, "s5")).not.toContain(KEY);
    } finally {
      await d.cleanup();
    }
  });
});

describe("the queue's job handlers", () => {
  it("a handler cannot take over the queue's own job types", () => {
    const handler = { jobType: "run", execute: async () => ({ status: "COMPLETED" as const }) };
    expect(() => jobHandlersOf([{ jobHandlers: [handler] }])).toThrow(/queue's own/);
  });

  it("a job of a type no handler runs here fails with the reason instead of running as a run", async () => {
    const db = new MemoryDb();
    const { job } = await db.jobs.enqueueJob({
      id: crypto.randomUUID(),
      job_type: "minimax_video",
      component_type: "agent",
      component_id: "director",
      user_id: null,
      payload: { task_id: "1" },
      max_attempts: 3,
      max_depth: 100,
    });
    await drainQueue(db, { components: [] });
    expect(await db.jobs.getJob(job.id)).toMatchObject({
      status: "FAILED",
      attempt: 1,
      error: "no handler for job type minimax_video in this deployment",
    });
  });
});
