import { describe, expect, it } from "vitest";
import { drainQueue } from "../support/drain-queue.js";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import type { MemoryDb } from "../../src/db/memory/index.js";
import { ValidationError } from "../../src/errors.js";
import { AgentOS } from "../../src/os/agent-os.js";
import { tool } from "../../src/tools/tool.js";
import { memoryTestDb, scriptedModel } from "../support/agent-kit.js";
import type { Turn } from "../support/model-script.js";
import { RecordingInterface } from "../support/recording-interface.js";

/**
 * The core every chat interface stands on (src/interfaces): a webhook queues a run whose answer
 * the interface posts from the job, once per message however often it is delivered; a paused
 * run's button press queues its continue, for the run's own user only; a post that fails is
 * retried without running the component again. Exercised through a minimal interface over HTTP.
 */
async function setup(turns: Turn[], opts: { admins?: string[] } = {}) {
  const { db } = memoryTestDb();
  const { model, script } = await scriptedModel(turns);
  const remove = tool({
    name: "delete_file",
    parameters: z.object({ path: z.string() }),
    requiresConfirmation: true,
    execute: ({ path }) => `deleted ${path}`,
  });
  const agent = new Agent({ id: "helper", model, tools: [remove], db });
  const rec = new RecordingInterface(agent, "/rec", opts.admins);
  const os = new AgentOS({ agents: [agent], interfaces: [rec], queue: { durable: true }, auth: { mode: "none" } });
  const services = { dbs: [db], jobs: db.jobs, queue: { wake: async () => {} } };
  const post = async (path: string, body: unknown) => {
    const res = await os.fetch(
      new Request(`http://os${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      }),
      services,
    );
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  return { db, os, rec, agent, script, post, drain: () => drain(db, [agent], rec) };
}

/** Runs every job to its end, as the JobQueue object would. */
function drain(db: MemoryDb, agents: Agent[], rec: RecordingInterface): Promise<void> {
  return drainQueue(db, { components: agents, interfaces: [rec] });
}

describe("chat interfaces' core", () => {
  it("lists the interface in /config as agno's InterfaceResponse", async () => {
    const { os } = await setup([]);
    const res = await os.fetch(new Request("http://os/config"), { dbs: [] });
    expect(((await res.json()) as { interfaces: unknown }).interfaces).toEqual([
      { type: "recording", version: "1.0", route: "/rec" },
    ]);
  });

  it("turns a message into one run answered in its chat, however often the message is delivered", async () => {
    const { db, rec, post, drain, script } = await setup([{ text: "Hello Ann." }]);
    const message = { id: "m1", user: "ann", chat: "c1", text: "hi" };
    const first = await post("/rec/webhook", message);
    expect(first).toMatchObject({ status: 200, body: { created: true } });
    // A platform retry before the run ran, and a replay after: the same job, nothing new.
    expect((await post("/rec/webhook", message)).body).toEqual({ job_id: first.body.job_id, created: false });
    await drain();
    expect((await post("/rec/webhook", message)).body).toEqual({ job_id: first.body.job_id, created: false });
    await drain();

    expect(rec.posts).toHaveLength(1);
    expect(rec.posts[0]).toMatchObject({ chat: "c1", status: "COMPLETED", content: "Hello Ann.", requirements: [] });
    expect(rec.posts[0]!.events).toBeGreaterThan(1);
    expect(await script.requests()).toHaveLength(1);
    const run = await db.getRun(rec.posts[0]!.run_id);
    expect(run).toMatchObject({ status: "COMPLETED", user_id: "ann", session_id: "recording:c1:ann" });
    expect(await db.jobs.getJob(String(first.body.job_id))).toMatchObject({ status: "COMPLETED" });
  });

  it("posts a paused run's requirements; only its user's press continues it, once", async () => {
    const { db, rec, post, drain, script } = await setup([
      { toolCalls: [{ id: "c1", name: "delete_file", arguments: { path: "/tmp/a" } }] },
      { text: "Deleted." },
    ]);
    await post("/rec/webhook", { id: "m1", user: "ann", chat: "c1", text: "delete /tmp/a" });
    await drain();
    expect(rec.posts).toEqual([expect.objectContaining({ status: "PAUSED", requirements: ["c1"] })]);
    const runId = rec.posts[0]!.run_id;

    // Someone else in the chat presses: the run is not theirs, nothing is queued.
    const stranger = await post("/rec/press", { press_id: "p0", run_id: runId, user: "bob", confirmed: true });
    expect(stranger.status).toBe(404);
    expect(stranger.body).toMatchObject({ error_id: expect.any(String) });
    expect(await db.jobs.queueStats()).toMatchObject({ pending: 0 });

    const press = { press_id: "p1", run_id: runId, user: "ann", confirmed: true };
    expect((await post("/rec/press", press)).body).toMatchObject({ created: true });
    expect((await post("/rec/press", press)).body).toMatchObject({ created: false });
    await drain();
    expect(rec.posts.at(-1)).toMatchObject({ chat: "pressed", status: "COMPLETED", content: "Deleted." });
    expect(await db.getRun(runId)).toMatchObject({ status: "COMPLETED" });

    // A second, different press on the answered run continues nothing: the run is shown as it stands.
    await post("/rec/press", { ...press, press_id: "p2" });
    await drain();
    expect(rec.posts.at(-1)).toMatchObject({ status: "COMPLETED", content: "Deleted." });
    expect(await script.requests()).toHaveLength(2);
  });

  it("lets an admin the interface names answer another user's run", async () => {
    const { rec, post, drain } = await setup(
      [{ toolCalls: [{ id: "c1", name: "delete_file", arguments: { path: "/x" } }] }, { text: "Done." }],
      { admins: ["root"] },
    );
    await post("/rec/webhook", { id: "m1", user: "ann", chat: "c1", text: "delete /x" });
    await drain();
    const runId = rec.posts[0]!.run_id;
    expect((await post("/rec/press", { press_id: "p", run_id: runId, user: "root", confirmed: true })).status).toBe(
      200,
    );
    await drain();
    expect(rec.posts.at(-1)).toMatchObject({ status: "COMPLETED", content: "Done." });
  });

  it("retries a post that failed without running the component again", async () => {
    const { db, rec, post, drain, script } = await setup([{ text: "Once." }]);
    rec.failPosts = 1;
    const { body } = await post("/rec/webhook", { id: "m1", user: "ann", chat: "c1", text: "hi" });
    await drain();
    expect(rec.posts).toEqual([expect.objectContaining({ status: "COMPLETED", content: "Once." })]);
    expect(await script.requests()).toHaveLength(1);
    expect(await db.jobs.getJob(String(body.job_id))).toMatchObject({ status: "COMPLETED", attempt: 2 });
  });

  it("answers a message whose run could not start with the reason, once, without retrying a refusal", async () => {
    const { db, rec, post, drain, script } = await setup([{ text: "never asked" }]);
    rec.mediaError = new ValidationError("the photo is larger than 20 MB", "media");
    const { body } = await post("/rec/webhook", { id: "m1", user: "ann", chat: "c1", text: "look" });
    await drain();
    expect(rec.posts).toEqual([
      expect.objectContaining({ chat: "c1", status: "ERROR", content: "the photo is larger than 20 MB" }),
    ]);
    expect(await script.requests()).toHaveLength(0);
    expect(await db.jobs.getJob(String(body.job_id))).toMatchObject({ status: "FAILED" });
  });

  it("answers a conversation's messages in the order they came, the later one waiting without using up an attempt", async () => {
    const { db, rec, post, drain } = await setup([
      { text: "first", delayMs: 400 },
      { text: "another" },
      { text: "another" },
    ]);
    const one = await post("/rec/webhook", { id: "m1", user: "ann", chat: "c1", text: "one" });
    const two = await post("/rec/webhook", { id: "m2", user: "ann", chat: "c1", text: "two" });
    // Another conversation is not held back by this one.
    await post("/rec/webhook", { id: "m3", user: "bob", chat: "c2", text: "three" });
    await drain();
    const first = await db.jobs.getJob(String(one.body.job_id));
    const second = await db.jobs.getJob(String(two.body.job_id));
    // The slow first answer is posted before the second, which did not start before it ended.
    const c1 = rec.posts.filter((p) => p.chat === "c1");
    expect(c1.map((p) => p.run_id)).toEqual([first!.payload.run_id, second!.payload.run_id]);
    expect(c1[0]!.content).toBe("first");
    expect(rec.posts).toHaveLength(3);
    // Waiting is not an attempt: both ran once, with every attempt still theirs.
    expect(first).toMatchObject({ status: "COMPLETED", attempt: 1 });
    expect(second).toMatchObject({ status: "COMPLETED", attempt: 1 });
  });

  it("refuses, when the app is built, an interface in front of a component it does not serve, and two at one prefix", async () => {
    const { agent } = await setup([]);
    const other = new Agent({ id: "other", model: agent.model });
    expect(() => new AgentOS({ agents: [agent], interfaces: [new RecordingInterface(other)] })).toThrow(
      /agent other, which this AgentOS does not serve/,
    );
    expect(
      () =>
        new AgentOS({ agents: [agent], interfaces: [new RecordingInterface(agent), new RecordingInterface(agent)] }),
    ).toThrow(/share the prefix \/rec/);
  });
});
