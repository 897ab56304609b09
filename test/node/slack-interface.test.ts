import { createHmac } from "node:crypto";
import { drainQueue } from "../support/drain-queue.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import { Team } from "../../src/team/team.js";
import type { MemoryDb } from "../../src/db/memory/index.js";
import { markdownToMrkdwn } from "../../src/interfaces/slack/markdown-to-mrkdwn.js";
import { Slack, type SlackOptions } from "../../src/interfaces/slack/index.js";
import { splitMrkdwn } from "../../src/interfaces/slack/split-mrkdwn.js";
import { AgentOS } from "../../src/os/agent-os.js";
import { tool } from "../../src/tools/tool.js";
import { FakeSlack } from "../support/fake-slack.js";
import { memoryTestDb, scriptedModel } from "../support/agent-kit.js";
import type { Turn } from "../support/model-script.js";

/**
 * The Slack interface against a fake Slack Web API (a real HTTP server): signed Events API
 * requests become runs answered in their thread, streamed by editing one message; a paused run
 * posts Approve/Reject buttons whose press continues it; bad requests are refused before
 * anything is queued; a failed post is retried by the job without running the model again.
 */
const TOKEN = "xoxb-test-token";
const SECRET = "8f742231b10e8888abcd99yyyzzz85a5";
const BOT = "UBOT";
let fake: FakeSlack;

beforeAll(async () => {
  fake = await new FakeSlack(TOKEN).start();
});
afterAll(async () => fake.stop());

const nowTs = () => String(Math.floor(Date.now() / 1000));
const sign = (body: string, ts: string, secret = SECRET) =>
  `v0=${createHmac("sha256", secret).update(`v0:${ts}:${body}`).digest("hex")}`;

let tsSeq = 0;
/** A fresh Slack message ts. */
const newTs = () => `1710000000.${String(++tsSeq).padStart(6, "0")}`;

function mention(opts: { ts?: string; user?: string; channel?: string; text?: string; thread_ts?: string } = {}) {
  const ts = opts.ts ?? newTs();
  return {
    type: "event_callback",
    team_id: "T1",
    api_app_id: "A1",
    event_id: `Ev${ts}`,
    authorizations: [{ user_id: BOT }],
    event: {
      type: "app_mention",
      channel: opts.channel ?? "C1",
      channel_type: "channel",
      user: opts.user ?? "UANN",
      text: opts.text ?? `<@${BOT}> hi there`,
      ts,
      ...(opts.thread_ts ? { thread_ts: opts.thread_ts } : {}),
    },
  };
}

async function setup(turns: Turn[], opts: Partial<SlackOptions> = {}) {
  const { db } = memoryTestDb();
  const { model, script } = await scriptedModel(turns);
  const remove = tool({
    name: "delete_file",
    parameters: z.object({ path: z.string() }),
    requiresConfirmation: true,
    execute: ({ path }) => `deleted ${path}`,
  });
  const drop = tool({
    name: "drop_table",
    parameters: z.object({ table: z.string() }),
    requiresApproval: true,
    execute: ({ table }) => `dropped ${table}`,
  });
  const agent = new Agent({ id: "helper", model, tools: [remove, drop], db });
  const slack = new Slack({ agent, token: TOKEN, signingSecret: SECRET, apiUrl: fake.apiUrl, ...opts });
  // A security key is set: the Slack routes are public, they check Slack's signature instead.
  const os = new AgentOS({
    agents: [agent],
    interfaces: [slack],
    queue: { durable: true },
    auth: { mode: "security_key", securityKey: "os-key" },
  });
  const services = { dbs: [db], jobs: db.jobs, queue: { wake: async () => {} } };
  const send = async (
    path: string,
    body: string,
    init: { ts?: string; signature?: string | null; headers?: Record<string, string>; contentType?: string } = {},
  ) => {
    const ts = init.ts ?? nowTs();
    const headers: Record<string, string> = {
      "content-type": init.contentType ?? "application/json",
      "x-slack-request-timestamp": ts,
      ...init.headers,
    };
    const signature = init.signature === undefined ? sign(body, ts) : init.signature;
    if (signature !== null) headers["x-slack-signature"] = signature;
    const res = await os.fetch(new Request(`http://os${path}`, { method: "POST", headers, body }), services);
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as Record<string, unknown> };
  };
  const event = (payload: unknown, init?: Parameters<typeof send>[2]) =>
    send("/slack/events", JSON.stringify(payload), init);
  const press = (payload: unknown, init?: Parameters<typeof send>[2]) =>
    send("/slack/interactions", new URLSearchParams({ payload: JSON.stringify(payload) }).toString(), {
      contentType: "application/x-www-form-urlencoded",
      ...init,
    });
  return { db, os, slack, agent, script, event, press, send, drain: () => drain(db, agent, slack) };
}

/** Runs every due job to its end, retries included (no backoff), as the JobQueue object would. */
function drain(db: MemoryDb, agent: Agent, slack: Slack): Promise<void> {
  return drainQueue(db, { components: [agent], interfaces: [slack] });
}

function buttonPress(opts: {
  user: string;
  value: string;
  action: "row_approve" | "row_reject";
  messageTs: string;
  threadTs: string;
  actionTs?: string;
}) {
  return {
    type: "block_actions",
    user: { id: opts.user, username: opts.user.toLowerCase() },
    team: { id: "T1" },
    trigger_id: `trig-${opts.actionTs ?? "1"}`,
    channel: { id: "C1", name: "general" },
    container: { type: "message", message_ts: opts.messageTs, channel_id: "C1", is_ephemeral: false },
    message: { ts: opts.messageTs, thread_ts: opts.threadTs, type: "message" },
    actions: [
      {
        action_id: opts.action,
        block_id: "row:x:confirmation:pending",
        value: opts.value,
        type: "button",
        action_ts: opts.actionTs ?? "1710000100.000001",
      },
    ],
  };
}

describe("Slack interface", () => {
  it("answers Slack's URL check with its challenge", async () => {
    const { event } = await setup([]);
    const res = await event({
      type: "url_verification",
      token: "legacy",
      challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P",
    });
    expect(res).toEqual({ status: 200, body: { challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" } });
  });

  it("turns a mention into a run answered in its thread, streamed into one message edited at a bounded rate", async () => {
    const answer = "Hello **Ann**, see [the docs](https://example.com/a?b=1&c=2) and `x < y`.";
    const { db, event, drain, script } = await setup([{ text: answer, chunkSize: 3, delayMs: 25 }], {
      updateIntervalMs: 150,
    });
    const m = mention();
    const res = await event(m);
    expect(res).toEqual({ status: 200, body: { ok: true } });
    await drain();

    const thread = fake.thread("C1", m.event.ts);
    expect(thread).toHaveLength(1);
    expect(thread[0]!.text).toBe("Hello *Ann*, see <https://example.com/a?b=1&amp;c=2|the docs> and `x &lt; y`.");
    // Streamed: posted early, edited while the model wrote, and edits at least the interval apart.
    const writes = [
      ...fake.callsOf("chat.postMessage").filter((c) => c.args.thread_ts === m.event.ts),
      ...fake.callsOf("chat.update").filter((c) => c.args.ts === thread[0]!.ts),
    ].sort((a, b) => a.at - b.at);
    expect(writes.length).toBeGreaterThanOrEqual(3);
    expect(writes.every((w) => w.authorized)).toBe(true);
    // Measured where Slack receives them, so with the client's jitter: no more writes than the interval allows, give or take one.
    const streamingWrites = writes.slice(0, -1);
    const span = streamingWrites.at(-1)!.at - streamingWrites[0]!.at;
    expect(streamingWrites.length).toBeLessThanOrEqual(Math.floor(span / 150) + 2);
    expect(writes.length).toBeLessThan(answer.length / 3 / 2);

    // The model saw the text without the bot's own mention; the run is the user's, in the thread's session.
    const [request] = await script.requests();
    expect(JSON.stringify(request!.body)).toContain("hi there");
    expect(JSON.stringify(request!.body)).not.toContain(`<@${BOT}>`);
    const runs = await db.getRuns({ userId: "UANN" });
    expect(runs.data).toEqual([
      expect.objectContaining({ status: "COMPLETED", user_id: "UANN", session_id: `slack:C1:${m.event.ts}:UANN` }),
    ]);
  });

  it("answers for a team: the leader's streamed answer, not its members' text", async () => {
    const { db } = memoryTestDb();
    const { model: leaderModel } = await scriptedModel([
      { toolCalls: [{ id: "d1", name: "delegate_task_to_member", arguments: { member_id: "writer", task: "write" } }] },
      { text: "The team says **hi**.", chunkSize: 4, delayMs: 20 },
    ]);
    const { model: memberModel, script: memberScript } = await scriptedModel([{ text: "MEMBER DRAFT", chunkSize: 4 }]);
    const writer = new Agent({ id: "writer", name: "writer", model: memberModel, db });
    const team = new Team({ id: "desk", name: "desk", model: leaderModel, members: [writer], db });
    const slack = new Slack({ team, token: TOKEN, signingSecret: SECRET, apiUrl: fake.apiUrl, updateIntervalMs: 50 });
    const os = new AgentOS({ teams: [team], interfaces: [slack], queue: { durable: true }, auth: { mode: "none" } });
    const m = mention();
    const body = JSON.stringify(m);
    const ts = nowTs();
    const res = await os.fetch(
      new Request("http://os/slack/events", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-slack-request-timestamp": ts,
          "x-slack-signature": sign(body, ts),
        },
        body,
      }),
      { dbs: [db], jobs: db.jobs, queue: { wake: async () => {} } },
    );
    expect(res.status).toBe(200);
    await drainQueue(db, { components: [team], interfaces: [slack] });
    const thread = fake.thread("C1", m.event.ts);
    expect(thread.map((x) => x.text)).toEqual(["The team says *hi*."]);
    const texts = [...fake.callsOf("chat.postMessage"), ...fake.callsOf("chat.update")]
      .filter((c) => c.args.thread_ts === m.event.ts || c.args.ts === thread[0]!.ts)
      .map((c) => String(c.args.text));
    expect(texts.some((t) => t.includes("MEMBER"))).toBe(false);
    // The member did write (its text streamed through the team's events), it just is not the answer.
    expect(await memberScript.requests()).toHaveLength(1);
    expect((await db.getRuns({})).data.find((r) => r.run_data.team_id === "desk")).toMatchObject({
      status: "COMPLETED",
      session_id: `slack:C1:${m.event.ts}:UANN`,
    });
  });

  it("runs a message once however Slack redelivers it (new event id, X-Slack-Retry-Num) or it is replayed", async () => {
    const { db, event, drain, script } = await setup([{ text: "Once." }], { streaming: false });
    const m = mention();
    expect((await event(m)).status).toBe(200);
    const redelivered = { ...m, event_id: "EvOther" };
    expect(
      (await event(redelivered, { headers: { "x-slack-retry-num": "1", "x-slack-retry-reason": "http_timeout" } }))
        .status,
    ).toBe(200);
    await drain();
    expect((await event(m)).status).toBe(200);
    await drain();
    expect(fake.thread("C1", m.event.ts).map((x) => x.text)).toEqual(["Once."]);
    expect(await script.requests()).toHaveLength(1);
    expect((await db.getRuns({})).data).toHaveLength(1);
  });

  it("a thread reply mentioning the bot continues the thread's session; DMs are answered without a mention", async () => {
    const { db, event, drain } = await setup([{ text: "First." }, { text: "Second." }, { text: "In DM." }], {
      streaming: false,
    });
    const first = mention();
    await event(first);
    await drain();
    const reply = mention({ thread_ts: first.event.ts, text: `more please <@${BOT}>` });
    await event(reply);
    await drain();
    expect(fake.thread("C1", first.event.ts).map((x) => x.text)).toEqual(["First.", "Second."]);
    const dm = {
      ...mention({ channel: "D1" }),
      event: { ...mention({ channel: "D1" }).event, type: "message", channel_type: "im", text: "hello" },
    };
    await event(dm);
    await drain();
    expect(fake.thread("D1", dm.event.ts).map((x) => x.text)).toEqual(["In DM."]);
    const sessions = new Set((await db.getRuns({})).data.map((r) => r.session_id));
    expect(sessions).toEqual(new Set([`slack:C1:${first.event.ts}:UANN`, `slack:D1:${dm.event.ts}:UANN`]));
  });

  it("ignores bot messages, its own, edits, deletes and unmentioned channel messages: 200, nothing queued", async () => {
    const { db, event } = await setup([]);
    const base = mention().event;
    const ignored = [
      { ...base, type: "message", channel_type: "channel", text: "no mention here" },
      { ...base, bot_id: "B999", text: "from another bot" },
      { ...base, subtype: "bot_message", text: "bot" },
      { ...base, user: BOT, text: "my own" },
      { ...base, type: "message", channel_type: "im", subtype: "message_changed" },
      { ...base, type: "message", channel_type: "im", subtype: "message_deleted" },
      { ...base, type: "message", channel_type: "im", subtype: "channel_join" },
      { ...base, type: "reaction_added" },
      { ...base, text: `<@${BOT}>   ` },
    ];
    for (const ev of ignored) {
      const res = await event({ ...mention(), event: { ...ev, ts: newTs() } });
      expect(res, JSON.stringify(ev)).toEqual({ status: 200, body: { ok: true } });
    }
    expect(await db.jobs.queueStats()).toMatchObject({ pending: 0 });
  });

  it("with replyToMentionsOnly false, answers channel messages and skips the duplicate app_mention", async () => {
    const { db, event, drain } = await setup([{ text: "Heard." }], { replyToMentionsOnly: false, streaming: false });
    const m = mention();
    await event(m);
    expect(await db.jobs.queueStats()).toMatchObject({ pending: 0 });
    await event({ ...m, event: { ...m.event, type: "message" } });
    await drain();
    expect(fake.thread("C1", m.event.ts).map((x) => x.text)).toEqual(["Heard."]);
  });

  it("posts a paused run's Approve/Reject buttons; only its user (or an admin) may press; the press continues it once", async () => {
    const { db, press, event, drain, script } = await setup(
      [{ toolCalls: [{ id: "c1", name: "delete_file", arguments: { path: "/tmp/a" } }] }, { text: "Deleted /tmp/a." }],
      { streaming: false },
    );
    const m = mention({ text: `<@${BOT}> delete /tmp/a` });
    await event(m);
    await drain();
    const [buttons] = fake.thread("C1", m.event.ts);
    expect(buttons!.text).toContain("delete_file");
    const actions = buttons!.blocks!.find((b) => (b as { type: string }).type === "actions") as {
      elements: Array<{ action_id: string; value: string }>;
    };
    expect(actions.elements.map((e) => e.action_id)).toEqual(["row_approve", "row_reject"]);
    const value = actions.elements[0]!.value;
    const runId = (await db.getRuns({})).data[0]!.run_id;
    expect(value).toContain(runId);

    // Someone else presses: Slack gets its 200, the presser a note only they see, and nothing is queued.
    const stranger = await press(
      buttonPress({ user: "UBOB", value, action: "row_approve", messageTs: buttons!.ts, threadTs: m.event.ts }),
    );
    expect(stranger).toEqual({ status: 200, body: { ok: true } });
    expect(fake.callsOf("chat.postEphemeral").at(-1)!.args).toMatchObject({ channel: "C1", user: "UBOB" });
    expect(await db.jobs.queueStats()).toMatchObject({ pending: 0 });

    const own = buttonPress({
      user: "UANN",
      value,
      action: "row_approve",
      messageTs: buttons!.ts,
      threadTs: m.event.ts,
      actionTs: "1710000200.000001",
    });
    expect(await press(own)).toEqual({ status: 200, body: { ok: true } });
    expect(await press(own)).toEqual({ status: 200, body: { ok: true } });
    expect(await db.jobs.queueStats()).toMatchObject({ pending: 1 });
    await drain();
    const thread = fake.thread("C1", m.event.ts);
    expect(thread.map((x) => x.text)).toEqual([
      '✅ Approved by <@UANN>: *delete_file* `{"path":"/tmp/a"}`',
      "Deleted /tmp/a.",
    ]);
    // The buttons are gone from the pressed message.
    expect(JSON.stringify(thread[0]!.blocks)).not.toContain("row_approve");
    expect(await db.getRun(runId)).toMatchObject({ status: "COMPLETED" });
    expect(await script.requests()).toHaveLength(2);
  });

  it("lets a configured admin reject another user's paused tool call", async () => {
    const { db, press, event, drain } = await setup(
      [
        { toolCalls: [{ id: "c1", name: "delete_file", arguments: { path: "/etc" } }] },
        { text: "I did not delete it." },
      ],
      { streaming: false, admins: ["UROOT"] },
    );
    const m = mention({ text: `<@${BOT}> delete /etc` });
    await event(m);
    await drain();
    const [buttons] = fake.thread("C1", m.event.ts);
    const value = (buttons!.blocks![1] as { elements: Array<{ value: string }> }).elements[1]!.value;
    expect(
      await press(
        buttonPress({ user: "UROOT", value, action: "row_reject", messageTs: buttons!.ts, threadTs: m.event.ts }),
      ),
    ).toEqual({
      status: 200,
      body: { ok: true },
    });
    await drain();
    const thread = fake.thread("C1", m.event.ts);
    expect(thread.map((x) => x.text)).toEqual([
      expect.stringContaining("Rejected by <@UROOT>"),
      "I did not delete it.",
    ]);
    const run = (await db.getRuns({})).data[0]!;
    expect(run.run_data.tools).toEqual([
      expect.objectContaining({ tool_name: "delete_file", result: expect.stringMatching(/rejected/) }),
    ]);
  });

  it("leaves a tool that needs an admin's approval to an admin: the user who asked is told, nothing is queued", async () => {
    const { db, press, event, drain } = await setup(
      [{ toolCalls: [{ id: "c1", name: "drop_table", arguments: { table: "users" } }] }, { text: "Dropped." }],
      { streaming: false, admins: ["UROOT"] },
    );
    const m = mention({ text: `<@${BOT}> drop users` });
    await event(m);
    await drain();
    const [ask] = fake.thread("C1", m.event.ts);
    expect(ask!.text).toContain("drop_table");
    const value = (ask!.blocks![1] as { elements: Array<{ value: string }> }).elements[0]!.value;
    const pressBy = (user: string, actionTs: string) =>
      press(buttonPress({ user, value, action: "row_approve", messageTs: ask!.ts, threadTs: m.event.ts, actionTs }));
    expect(await pressBy("UANN", "1710000400.000001")).toEqual({ status: 200, body: { ok: true } });
    expect(fake.callsOf("chat.postEphemeral").at(-1)!.args).toMatchObject({
      user: "UANN",
      text: expect.stringContaining("admin"),
    });
    expect(await db.jobs.queueStats()).toMatchObject({ pending: 0 });
    await pressBy("UROOT", "1710000400.000002");
    await drain();
    expect(fake.thread("C1", m.event.ts).map((x) => x.text)).toEqual([
      expect.stringContaining("Approved by <@UROOT>"),
      "Dropped.",
    ]);
  });

  it("asks for each of several paused tool calls; a press answers one, the run goes on once all are answered", async () => {
    const { db, press, event, drain, script } = await setup(
      [
        {
          toolCalls: [
            { id: "c1", name: "delete_file", arguments: { path: "/a" } },
            { id: "c2", name: "delete_file", arguments: { path: "/b" } },
          ],
        },
        { text: "Deleted /a, kept /b." },
      ],
      { streaming: false },
    );
    const m = mention({ text: `<@${BOT}> delete /a and /b` });
    await event(m);
    await drain();
    const asks = fake.thread("C1", m.event.ts);
    expect(asks.map((x) => x.text)).toEqual([
      expect.stringContaining("delete_file"),
      expect.stringContaining("delete_file"),
    ]);
    const valueOf = (i: number, button: number) =>
      (asks[i]!.blocks![1] as { elements: Array<{ value: string }> }).elements[button]!.value;
    const at = (i: number, action: "row_approve" | "row_reject", actionTs: string) =>
      buttonPress({
        user: "UANN",
        value: valueOf(i, action === "row_approve" ? 0 : 1),
        action,
        messageTs: asks[i]!.ts,
        threadTs: m.event.ts,
        actionTs,
      });
    await press(at(0, "row_approve", "1710000300.000001"));
    await drain();
    // Still waiting on the second: its buttons are not posted again, nothing else is said.
    expect(fake.thread("C1", m.event.ts).map((x) => x.text)).toEqual([
      expect.stringContaining("Approved by <@UANN>"),
      expect.stringContaining("delete_file"),
    ]);
    await press(at(1, "row_reject", "1710000300.000002"));
    await drain();
    expect(fake.thread("C1", m.event.ts).map((x) => x.text)).toEqual([
      expect.stringContaining("Approved by <@UANN>"),
      expect.stringContaining("Rejected by <@UANN>"),
      "Deleted /a, kept /b.",
    ]);
    expect((await db.getRuns({})).data[0]).toMatchObject({ status: "COMPLETED" });
    expect(await script.requests()).toHaveLength(2);
  });

  it("splits an answer longer than a Slack message into several, in order", async () => {
    const line = "Lorem ipsum dolor sit amet, consectetur adipiscing elit.";
    const long = Array.from({ length: 1600 }, (_, i) => `${i} ${line}`).join("\n");
    const { event, drain } = await setup([{ text: long, chunkSize: 20_000 }], { updateIntervalMs: 0 });
    const m = mention();
    await event(m);
    await drain();
    const thread = fake.thread("C1", m.event.ts);
    expect(thread.length).toBe(Math.ceil(long.length / 39_000));
    expect(thread.every((x) => x.text.length <= 39_000)).toBe(true);
    expect(thread.map((x) => x.text).join("\n")).toBe(long);
  });

  it("retries a post Slack failed (5xx) in the job, without running the model again", async () => {
    const { db, event, drain, script } = await setup([{ text: "Survived." }], { streaming: false });
    fake.fail({ status: 503, methods: ["chat.postMessage"], times: 1 });
    const m = mention();
    await event(m);
    await drain();
    expect(fake.thread("C1", m.event.ts).map((x) => x.text)).toEqual(["Survived."]);
    expect(await script.requests()).toHaveLength(1);
    const jobs = await db.jobs.listJobs({ limit: 10, page: 1 });
    expect(jobs.data ?? jobs).toEqual([expect.objectContaining({ status: "COMPLETED", attempt: 2 })]);
  });

  it("waits out a short 429 Retry-After itself, and leaves a long one to the job's retry", async () => {
    const { event, drain, script } = await setup([{ text: "Short." }, { text: "Long." }], { streaming: false });
    fake.fail({ status: 429, retryAfter: 1, methods: ["chat.postMessage"], times: 1 });
    const a = mention();
    await event(a);
    const started = Date.now();
    await drain();
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(fake.thread("C1", a.event.ts).map((x) => x.text)).toEqual(["Short."]);

    fake.fail({ status: 429, retryAfter: 3600, methods: ["chat.postMessage"], times: 1 });
    const b = mention();
    await event(b);
    await drain();
    expect(fake.thread("C1", b.event.ts).map((x) => x.text)).toEqual(["Long."]);
    expect(await script.requests()).toHaveLength(2);
  });

  it("holds streamed edits back after a 429 until its Retry-After has passed", async () => {
    const { event, drain } = await setup([{ text: "a".repeat(120), chunkSize: 2, delayMs: 20 }], {
      updateIntervalMs: 50,
    });
    fake.fail({ status: 429, retryAfter: 1, methods: ["chat.update"], times: 1 });
    const m = mention();
    await event(m);
    await drain();
    const updates = fake.callsOf("chat.update").filter((c) => c.args.channel === "C1");
    const limited = updates.findIndex((u) => u.status === 429);
    expect(limited).toBeGreaterThanOrEqual(0);
    const after = updates.slice(limited + 1);
    expect(after.length).toBeGreaterThan(0);
    expect(after[0]!.at - updates[limited]!.at).toBeGreaterThanOrEqual(950);
    expect(fake.thread("C1", m.event.ts)[0]!.text).toBe("a".repeat(120));
  });

  it("gives the run the files the user shared, fetched with the bot token, leaving out those too large or of other types", async () => {
    const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);
    const small = fake.addFile("F1", png, "image/png");
    const big = fake.addFile("F2", new Uint8Array(5000), "image/png");
    const odd = fake.addFile("F3", new Uint8Array(10), "application/x-msdownload");
    const { event, drain, script } = await setup([{ text: "A picture." }], { streaming: false, maxFileBytes: 1000 });
    const m = mention();
    const files = [
      { id: "F1", name: "a.png", mimetype: "image/png", size: png.length, url_private_download: small, mode: "hosted" },
      { id: "F2", name: "b.png", mimetype: "image/png", size: 100, url_private_download: big, mode: "hosted" },
      {
        id: "F3",
        name: "c.exe",
        mimetype: "application/x-msdownload",
        size: 10,
        url_private_download: odd,
        mode: "hosted",
      },
    ];
    await event({ ...m, event: { ...m.event, subtype: "file_share", files } });
    await drain();
    expect(fake.thread("C1", m.event.ts).map((x) => x.text)).toEqual(["A picture."]);
    const fetched = fake.downloads.filter(
      (d) => d.path === "/files/F1" || d.path === "/files/F2" || d.path === "/files/F3",
    );
    expect(fetched).toEqual([
      { path: "/files/F1", authorized: true },
      // Declared small, sent large: fetched, and dropped at the cap.
      { path: "/files/F2", authorized: true },
    ]);
    const body = JSON.stringify((await script.requests())[0]!.body);
    expect(body).toContain(Buffer.from(png).toString("base64"));
    expect(body).not.toContain(Buffer.from(new Uint8Array(5000)).toString("base64").slice(0, 200));
  });

  it("says so in the thread when the run fails for good", async () => {
    const failing = { error: { status: 400, message: "bad request to the model" } };
    const { event, drain } = await setup([failing, failing, failing], { streaming: false });
    const m = mention();
    await event(m);
    await drain();
    expect(fake.thread("C1", m.event.ts).map((x) => x.text)).toEqual([
      "Sorry, there was an error processing your message. Please try again later.",
    ]);
  });

  it("sets an assistant thread's status and title while the run works", async () => {
    const { event, drain } = await setup([{ text: "Thought." }], { streaming: false });
    const m = mention();
    await event({
      ...m,
      event: {
        ...m.event,
        type: "message",
        channel: "D9",
        channel_type: "im",
        assistant_thread: { action_token: "x" },
      },
    });
    await drain();
    expect(fake.callsOf("assistant.threads.setStatus").at(-1)!.args).toEqual({
      channel_id: "D9",
      thread_ts: m.event.ts,
      status: "is thinking…",
    });
    // As agno titles it: the message's first 50 characters (the bot's mention removed).
    expect(fake.callsOf("assistant.threads.setTitle").at(-1)!.args).toEqual({
      channel_id: "D9",
      thread_ts: m.event.ts,
      title: "hi there",
    });
    expect(fake.thread("D9", m.event.ts).map((x) => x.text)).toEqual(["Thought."]);
  });

  it("refuses bad requests with 4xx {detail, error_id} and queues nothing", async () => {
    const { db, send, event, press } = await setup([]);
    const calls = fake.calls.length;
    const good = JSON.stringify(mention());
    const old = String(Math.floor(Date.now() / 1000) - 301);
    const future = String(Math.floor(Date.now() / 1000) + 301);
    const ts = nowTs();
    const withEvent = (patch: Record<string, unknown>) => ({ ...mention(), event: { ...mention().event, ...patch } });
    const cases: Array<[string, () => Promise<{ status: number; body: Record<string, unknown> }>, number]> = [
      ["no signature", () => send("/slack/events", good, { signature: null }), 401],
      ["no timestamp", () => send("/slack/events", good, { headers: { "x-slack-request-timestamp": "" } }), 401],
      [
        "signed with another secret",
        () => send("/slack/events", good, { signature: sign(good, ts, "other-secret"), ts }),
        401,
      ],
      [
        "signature not v0",
        () => send("/slack/events", good, { signature: sign(good, ts).replace("v0=", "v1="), ts }),
        401,
      ],
      ["signature not hex", () => send("/slack/events", good, { signature: `v0=${"z".repeat(64)}` }), 401],
      ["stale timestamp", () => send("/slack/events", good, { ts: old, signature: sign(good, old) }), 401],
      [
        "timestamp from the future",
        () => send("/slack/events", good, { ts: future, signature: sign(good, future) }),
        401,
      ],
      [
        "timestamp not a number",
        () => send("/slack/events", good, { ts: "12abc", signature: sign(good, "12abc") }),
        401,
      ],
      [
        "body altered after signing",
        () => send("/slack/events", good.replace("hi there", "rm -rf"), { ts, signature: sign(good, ts) }),
        401,
      ],
      [
        "signature of another timestamp",
        () => send("/slack/events", good, { ts, signature: sign(good, String(Number(ts) - 1)) }),
        401,
      ],
      ["oversized body", () => event({ ...mention(), padding: "x".repeat(600 * 1024) }), 413],
      ["malformed JSON", () => send("/slack/events", "{not json"), 400],
      ["JSON array", () => send("/slack/events", "[]"), 422],
      ["unknown envelope type", () => event({ type: "block_suggestion" }), 422],
      ["url_verification without challenge", () => event({ type: "url_verification" }), 422],
      ["event_callback without event", () => event({ type: "event_callback", team_id: "T1" }), 422],
      ["event.channel a number", () => event(withEvent({ channel: 42 })), 422],
      ["event.text an object", () => event(withEvent({ text: { a: 1 } })), 422],
      ["event.ts not a Slack ts", () => event(withEvent({ ts: "yesterday" })), 422],
      ["a message without user", () => event(withEvent({ user: undefined })), 422],
      ["a message without ts", () => event(withEvent({ ts: undefined })), 422],
      ["event.files not a list", () => event(withEvent({ files: "F1" })), 422],
      [
        "a file URL that is not https",
        () =>
          event(
            withEvent({
              files: [{ id: "F", mimetype: "image/png", url_private_download: "http://169.254.169.254/x" }],
            }),
          ),
        422,
      ],
      ["text with a NUL", () => event(withEvent({ text: "hi\u0000" })), 422],
      [
        "interaction unsigned",
        () =>
          press(buttonPress({ user: "U", value: "c1|r1", action: "row_approve", messageTs: "1.1", threadTs: "1.1" }), {
            signature: null,
          }),
        401,
      ],
      [
        "interaction without payload",
        () => send("/slack/interactions", "other=1", { contentType: "application/x-www-form-urlencoded" }),
        400,
      ],
      [
        "interaction payload not JSON",
        () => send("/slack/interactions", "payload=%7Bnope", { contentType: "application/x-www-form-urlencoded" }),
        400,
      ],
      ["interaction payload not an object", () => press("block_actions"), 422],
      [
        "block_actions without user",
        () =>
          press({
            ...buttonPress({ user: "U", value: "c1|r1", action: "row_approve", messageTs: "1.1", threadTs: "1.1" }),
            user: undefined,
          }),
        422,
      ],
      [
        "block_actions with no actions",
        () =>
          press({
            ...buttonPress({ user: "U", value: "c1|r1", action: "row_approve", messageTs: "1.1", threadTs: "1.1" }),
            actions: [],
          }),
        422,
      ],
      [
        "a button value this interface never wrote",
        () =>
          press(buttonPress({ user: "U", value: "garbage", action: "row_approve", messageTs: "1.1", threadTs: "1.1" })),
        422,
      ],
    ];
    for (const [name, call, status] of cases) {
      const res = await call();
      expect({ name, status: res.status }).toEqual({ name, status });
      expect(res.body, name).toMatchObject({ detail: expect.any(String), error_id: expect.any(String) });
      expect(JSON.stringify(res.body), name).not.toContain(SECRET);
    }
    expect(cases.length).toBeGreaterThanOrEqual(20);
    expect(await db.jobs.queueStats()).toMatchObject({ pending: 0 });
    expect((await db.getRuns({})).data).toHaveLength(0);
    expect(fake.calls.length).toBe(calls);
  });
});

describe("Slack mrkdwn", () => {
  it("converts Markdown and escapes what Slack would read as mentions or links", () => {
    expect(markdownToMrkdwn("# Title\n- **bold** and *it* and ~~gone~~\n* item")).toBe(
      "*Title*\n• *bold* and _it_ and ~gone~\n• item",
    );
    expect(markdownToMrkdwn("<!channel> <!here> <@U123> <https://evil.example|click> a & b > c")).toBe(
      "&lt;!channel&gt; &lt;!here&gt; &lt;@U123&gt; &lt;https://evil.example|click&gt; a &amp; b &gt; c",
    );
    expect(markdownToMrkdwn("[x](javascript:alert(1)) [ok](https://a.example/p?q=1&r=<2>|3)")).toBe(
      "[x](javascript:alert(1)) <https://a.example/p?q=1&amp;r=%3C2%3E%7C3|ok>",
    );
    expect(markdownToMrkdwn("[a|b>](https://x.example)")).toBe("<https://x.example|a¦b&gt;>");
    expect(markdownToMrkdwn("```python\nif a < b and **c**:\n    pass\n```\nthen `<!everyone>`")).toBe(
      "```if a &lt; b and **c**:\n    pass```\nthen `&lt;!everyone&gt;`",
    );
    // Text can never smuggle in the converter's own placeholders.
    expect(markdownToMrkdwn("\uE0000\uE001 `a`")).toBe("0 `a`");
  });

  it("splits at line breaks, never inside an escape or a link, and closes and reopens a cut code block", () => {
    const parts = splitMrkdwn(`${"a".repeat(60)}\n${"b".repeat(60)}`, 100);
    expect(parts).toEqual(["a".repeat(60), "b".repeat(60)]);
    const entities = splitMrkdwn("x".repeat(88) + "&amp;&amp;" + "y".repeat(20), 100);
    expect(entities.every((p) => !/&[a-z]*$/.test(p))).toBe(true);
    expect(entities.join("")).toBe("x".repeat(88) + "&amp;&amp;" + "y".repeat(20));
    const link = splitMrkdwn("z".repeat(80) + "<https://a.example|link>" + "w".repeat(20), 100);
    expect(link[1]!.startsWith("<https://a.example|link>")).toBe(true);
    const code = splitMrkdwn("```" + "c\n".repeat(100) + "```", 100);
    expect(code.length).toBeGreaterThan(1);
    for (const p of code) {
      expect(p.length).toBeLessThanOrEqual(100);
      expect(p.split("```").length - 1).toBe(2);
    }
  });
});

describe("Slack settings", () => {
  it("refuses a Slack interface without a token, a signing secret, or exactly one component", async () => {
    const { agent } = await setup([]);
    expect(() => new Slack({ agent, token: "", signingSecret: SECRET })).toThrow(/SLACK_BOT_TOKEN/);
    expect(() => new Slack({ agent, token: TOKEN, signingSecret: "" })).toThrow(/SLACK_SIGNING_SECRET/);
    expect(() => new Slack({ token: TOKEN, signingSecret: SECRET })).toThrow(/exactly one/);
  });
});
