import { execFile } from "node:child_process";
import { drainQueue } from "../support/drain-queue.js";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import type { RunOutput } from "../../src/agent/run-output.js";
import type { MemoryDb } from "../../src/db/memory/index.js";
import { decodeButton } from "../../src/interfaces/telegram/callback-data.js";
import { TelegramApi } from "../../src/interfaces/telegram/telegram-api.js";
import { telegramFollower } from "../../src/interfaces/telegram/telegram-follower.js";
import {
  Telegram,
  isTelegramHtml,
  markdownToTelegramHtml,
  setTelegramWebhook,
  splitTelegramHtml,
} from "../../src/interfaces/telegram/index.js";
import { AgentOS } from "../../src/os/agent-os.js";
import { tool } from "../../src/tools/tool.js";
import { HumanReview, Step, Workflow } from "../../src/sdk.js";
import { memoryTestDb, scriptedModel } from "../support/agent-kit.js";
import { FakeTelegram, parseTelegramHtml } from "../support/fake-telegram.js";
import { DbSpanExporter } from "../../src/tracing/db-exporter.js";
import { Tracer } from "../../src/tracing/tracer.js";
import type { TracingSettings } from "../../src/tracing/tracing-settings.js";
import type { Turn } from "../support/model-script.js";

/**
 * agno's Telegram interface over HTTP: Telegram's updates (from the test, with the secret
 * header) reach the AgentOS webhook, the durable queue runs them (a Dispatcher drains it), and
 * the interface answers through the Bot API of a fake Telegram server on 127.0.0.1.
 */
const TOKEN = "123456:AAH-test_token_abcdefghijklmnop";
const BOT_ID = 123456;
const SECRET = "s3cret_Webhook-token";
const ANN = { id: 42, is_bot: false, first_name: "Ann" };
const BOB = { id: 77, is_bot: false, first_name: "Bob" };
const ROOT = { id: 1, is_bot: false, first_name: "Root" };

const servers: FakeTelegram[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

let updateId = 500;
let messageId = 10;
function message(fields: Record<string, unknown>, chat: Record<string, unknown> = { id: 42, type: "private" }) {
  return { update_id: updateId++, message: { message_id: messageId++, date: 1, from: ANN, chat, ...fields } };
}

async function setup(
  turns: Turn[],
  opts: { admins?: string[]; maxFileBytes?: number; replyToMentionsOnly?: boolean; tracing?: TracingSettings } = {},
) {
  const fake = await new FakeTelegram({ token: TOKEN, username: "agno_bot" }).start();
  servers.push(fake);
  const { db } = memoryTestDb();
  const { model, script } = await scriptedModel(turns, "openai", { maxRetries: 0 });
  const remove = tool({
    name: "delete_file",
    parameters: z.object({ path: z.string() }),
    requiresConfirmation: true,
    execute: ({ path }) => `deleted ${path}`,
  });
  const wipe = tool({
    name: "wipe_disk",
    parameters: z.object({ disk: z.string() }),
    requiresApproval: true,
    execute: ({ disk }) => `wiped ${disk}`,
  });
  const weather = tool({
    name: "weather",
    parameters: z.object({ city: z.string() }),
    requiresUserInput: true,
    userInputFields: ["city"],
    execute: ({ city }) => `sunny in ${city}`,
  });
  const agent = new Agent({ id: "helper", model, tools: [remove, wipe, weather], db });
  const tg = new Telegram({
    agent,
    token: TOKEN,
    webhookSecret: SECRET,
    apiUrl: fake.url,
    ...(opts.admins ? { admins: opts.admins } : {}),
    ...(opts.maxFileBytes ? { maxFileBytes: opts.maxFileBytes } : {}),
    ...(opts.replyToMentionsOnly !== undefined ? { replyToMentionsOnly: opts.replyToMentionsOnly } : {}),
  });
  // Protected by a key: the webhook must be reachable without it.
  const os = new AgentOS({
    agents: [agent],
    interfaces: [tg],
    queue: { durable: true },
    auth: { mode: "security_key", securityKey: "os-key" },
    ...(opts.tracing ? { tracing: opts.tracing } : {}),
  });
  const services = { dbs: [db], jobs: db.jobs, queue: { wake: async () => {} } };
  const send = async (body: unknown, headers: Record<string, string> = {}) => {
    const res = await os.fetch(
      new Request("http://os/telegram/webhook", {
        method: "POST",
        headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": SECRET, ...headers },
        body: typeof body === "string" ? body : body instanceof Uint8Array ? Buffer.from(body) : JSON.stringify(body),
      }),
      services,
    );
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const drain = () => drainJobs(db, agent, tg);
  return { fake, db, os, tg, agent, script, send, drain, services };
}

/** Runs every due job to its end, retries included (no backoff), as the JobQueue object would. */
function drainJobs(db: MemoryDb, agent: Agent, tg: Telegram): Promise<void> {
  return drainQueue(db, { components: [agent], interfaces: [tg] });
}

/** The buttons of the last message sent: their callback data. */
function buttonsOf(fake: FakeTelegram): string[] {
  const markup = fake.of("sendMessage").at(-1)?.reply_markup as
    { inline_keyboard: Array<Array<{ callback_data: string }>> } | undefined;
  return (markup?.inline_keyboard ?? []).flat().map((b) => b.callback_data);
}

function press(data: string, from: typeof ANN, id = `cb-${updateId}`) {
  return {
    update_id: updateId++,
    callback_query: {
      id,
      from,
      chat_instance: "ci",
      data,
      message: { message_id: 1000, date: 1, chat: { id: 42, type: "private" } },
    },
  };
}

describe("Telegram interface", () => {
  it("answers a private message in its chat as a reply, once however often Telegram delivers it", async () => {
    const { fake, db, send, drain, script } = await setup([{ text: "Hello **Ann** & <friends>" }]);
    const update = message({ text: "hi" });
    expect(await send(update)).toEqual({ status: 200, body: { status: "processing" } });
    expect(await send(update)).toEqual({ status: 200, body: { status: "duplicate" } });
    await drain();
    expect(await send(update)).toEqual({ status: 200, body: { status: "duplicate" } });
    await drain();

    expect(fake.of("sendMessage")).toEqual([
      {
        chat_id: 42,
        text: "Hello <b>Ann</b> &amp; &lt;friends&gt;",
        parse_mode: "HTML",
        link_preview_options: { is_disabled: true },
        reply_parameters: { message_id: update.message.message_id, allow_sending_without_reply: true },
      },
    ]);
    expect(fake.of("sendChatAction")[0]).toEqual({ chat_id: 42, action: "typing" });
    expect(await script.requests()).toHaveLength(1);
    const [run] = (await db.getRuns({})).data;
    expect(run).toMatchObject({ status: "COMPLETED", user_id: "42", session_id: "telegram:42:42" });
  });

  it("in groups answers mentions and replies to the bot only, in the message's forum topic, with a session per user", async () => {
    const { fake, db, send, drain, script } = await setup([{ text: "one" }, { text: "two" }]);
    const group = { id: -100, type: "supergroup", is_forum: true };
    expect((await send(message({ text: "just chatting" }, group))).body).toEqual({ status: "ignored" });
    expect((await send(message({ text: "/help@other_bot" }, group))).body).toEqual({ status: "ignored" });
    const mention = message(
      { text: "@agno_bot what time is it?", message_thread_id: 7, is_topic_message: true },
      group,
    );
    expect((await send(mention)).body).toEqual({ status: "processing" });
    const reply = message(
      { from: BOB, text: "and you?", reply_to_message: { message_id: 3, date: 1, from: { id: BOT_ID, is_bot: true } } },
      group,
    );
    expect((await send(reply)).body).toEqual({ status: "processing" });
    await drain();

    const sent = fake.of("sendMessage");
    expect(sent).toHaveLength(2);
    expect(sent.find((m) => m.message_thread_id === 7)).toMatchObject({ chat_id: -100 });
    expect(fake.of("getMe")).toHaveLength(1);
    const runs = (await db.getRuns({})).data;
    expect(runs.map((r) => r.session_id).sort()).toEqual(["telegram:-100:77", "telegram:-100:7:42"]);
    // The mention is taken out of what the model reads.
    const asked = JSON.stringify((await script.requests()).map((r) => r.body.messages));
    expect(asked).toContain("what time is it?");
    expect(asked).not.toContain("@agno_bot");
  });

  it("answers /start and /help from the webhook, without a run", async () => {
    const { fake, db, send } = await setup([]);
    expect((await send(message({ text: "/start" }))).body).toEqual({ status: "processing" });
    expect((await send(message({ text: "/help" }))).body).toEqual({ status: "processing" });
    expect(fake.texts()).toEqual([
      "Hello! I'm ready to help. Send me a message to get started.",
      "Send me text, photos, voice notes, or documents and I'll help you with them.",
    ]);
    expect(await db.jobs.queueStats()).toMatchObject({ pending: 0 });
  });

  it("posts a paused run's Approve and Reject buttons; a stranger's press continues nothing, the asker's once", async () => {
    const { fake, db, send, drain, script } = await setup([
      { toolCalls: [{ id: "c1", name: "delete_file", arguments: { path: "/tmp/a" } }] },
      { text: "Deleted." },
    ]);
    await send(message({ text: "delete /tmp/a" }));
    await drain();
    expect(fake.texts().at(-1)).toContain("<code>delete_file</code>");
    const [approve, reject] = buttonsOf(fake);
    expect(Buffer.byteLength(approve!)).toBeLessThanOrEqual(64);
    expect(decodeButton(approve)).toMatchObject({ action: "approve", index: 0 });
    expect(decodeButton(reject)).toMatchObject({ action: "reject", index: 0 });

    expect((await send(press(approve!, BOB))).body).toEqual({ status: "ignored" });
    expect(fake.of("answerCallbackQuery").at(-1)).toMatchObject({ text: expect.stringContaining("Only the person") });
    expect(await db.jobs.queueStats()).toMatchObject({ pending: 0 });

    const mine = press(approve!, ANN, "cb-ann");
    expect((await send(mine)).body).toEqual({ status: "processing" });
    expect((await send(mine)).body).toEqual({ status: "duplicate" });
    expect(fake.of("answerCallbackQuery").at(-1)).toMatchObject({ callback_query_id: "cb-ann", text: "Approved" });
    await drain();
    expect(fake.texts().at(-1)).toBe("Deleted.");
    expect(fake.of("editMessageReplyMarkup")).toEqual([
      { chat_id: 42, message_id: 1000, reply_markup: { inline_keyboard: [] } },
    ]);
    // Pressing again on the answered run queues nothing.
    expect((await send(press(reject!, ANN))).body).toEqual({ status: "ignored" });
    expect(await script.requests()).toHaveLength(2);
  });

  it("continues the webhook requests' traces: a message's run and a button press's continue", async () => {
    const { fake, db, send, agent, tg } = await setup(
      [{ toolCalls: [{ id: "c1", name: "delete_file", arguments: { path: "/tmp/a" } }] }, { text: "Deleted." }],
      { tracing: { exporters: ["db"] } },
    );
    // The JobQueue object's tracer, as it builds it from the same settings.
    const queueTracer = new Tracer({ exporters: [new DbSpanExporter(db.traces)] });
    const drain = async () => {
      await drainQueue(db, { components: [agent], interfaces: [tg], tracer: queueTracer });
      await queueTracer.flush();
    };
    const spanOf = async (traceId: string, name: string) =>
      (await db.traces.getSpans(traceId)).find((s) => s.name === name);

    await send(message({ text: "delete /tmp/a" }), {
      traceparent: "00-11f7651916cd43dd8448eb211c80319c-c7ad6b7169203331-01",
    });
    await drain();
    const enqueue = (await spanOf("11f7651916cd43dd8448eb211c80319c", "enqueue agent run"))!;
    expect(enqueue.parent_span_id).toBe("c7ad6b7169203331");
    const job = (await spanOf("11f7651916cd43dd8448eb211c80319c", "process run job"))!;
    expect(job.parent_span_id).toBe(enqueue.span_id);
    expect((await spanOf("11f7651916cd43dd8448eb211c80319c", "Agent.run"))?.parent_span_id).toBe(job.span_id);

    const [approve] = buttonsOf(fake);
    await send(press(approve!, ANN), { traceparent: "00-22f7651916cd43dd8448eb211c80319c-d7ad6b7169203331-01" });
    await drain();
    expect(fake.texts().at(-1)).toBe("Deleted.");
    const continued = (await spanOf("22f7651916cd43dd8448eb211c80319c", "process run_continue job"))!;
    expect((await spanOf("22f7651916cd43dd8448eb211c80319c", "enqueue agent run"))?.span_id).toBe(
      continued.parent_span_id,
    );
    const run = (await spanOf("22f7651916cd43dd8448eb211c80319c", "Agent.run"))!;
    expect(run.parent_span_id).toBe(continued.span_id);
    expect((await spanOf("22f7651916cd43dd8448eb211c80319c", "execute_tool delete_file"))?.parent_span_id).toBe(
      run.span_id,
    );
  });

  it("lets a configured admin answer another user's run, and only an admin approve an admin-only tool", async () => {
    const { fake, send, drain } = await setup(
      [{ toolCalls: [{ id: "w1", name: "wipe_disk", arguments: { disk: "sda" } }] }, { text: "Wiped." }],
      { admins: ["1"] },
    );
    await send(message({ text: "wipe sda" }));
    await drain();
    expect(fake.texts().at(-1)).toContain("Only an admin may approve this.");
    const [approve] = buttonsOf(fake);
    expect((await send(press(approve!, ANN))).body).toEqual({ status: "ignored" });
    expect(fake.of("answerCallbackQuery").at(-1)).toMatchObject({ text: "Only an admin may approve this." });
    expect((await send(press(approve!, ROOT))).body).toEqual({ status: "processing" });
    await drain();
    expect(fake.texts().at(-1)).toBe("Wiped.");
  });

  it("puts a workflow's confirmation step to the chat and goes on once its user approves", async () => {
    const fake = await new FakeTelegram({ token: TOKEN }).start();
    servers.push(fake);
    const { db } = memoryTestDb();
    const ran: string[] = [];
    const workflow = new Workflow({
      id: "publish",
      name: "publish",
      db,
      steps: [
        new Step({
          name: "publish",
          humanReview: new HumanReview({ requiresConfirmation: true, confirmationMessage: "Publish the <draft>?" }),
          executor: () => (ran.push("publish"), "Published **now**."),
        }),
      ],
    });
    const tg = new Telegram({ workflow, token: TOKEN, webhookSecret: SECRET, apiUrl: fake.url });
    const os = new AgentOS({ workflows: [workflow], interfaces: [tg], queue: { durable: true } });
    const services = { dbs: [db], jobs: db.jobs, queue: { wake: async () => {} } };
    const send = async (body: unknown) =>
      (
        await os.fetch(
          new Request("http://os/telegram/webhook", {
            method: "POST",
            headers: { "x-telegram-bot-api-secret-token": SECRET },
            body: JSON.stringify(body),
          }),
          services,
        )
      ).json();
    const drain = () => drainQueue(db, { components: [workflow], interfaces: [tg] });
    await send(message({ text: "publish it" }));
    await drain();
    expect(fake.texts().at(-1)).toBe("<b>Approval needed</b>\nPublish the &lt;draft&gt;?");
    const [approve] = buttonsOf(fake);
    expect(await send(press(approve!, BOB))).toEqual({ status: "ignored" });
    expect(await send(press(approve!, ANN))).toEqual({ status: "processing" });
    await drain();
    expect(ran).toEqual(["publish"]);
    expect(fake.texts().at(-1)).toBe("Published <b>now</b>.");
  });

  it("takes the answer to an input request from a reply to its message", async () => {
    const { fake, db, send, drain, script } = await setup([
      { toolCalls: [{ id: "u1", name: "weather", arguments: { city: "" } }] },
      { text: "It is sunny." },
    ]);
    await send(message({ text: "weather?" }));
    await drain();
    expect(fake.texts().at(-1)).toContain("Reply to this message with the value.");
    const [how] = buttonsOf(fake);
    expect((await send(press(how!, ANN))).body).toEqual({ status: "ignored" });
    const prompt = {
      message_id: 1000,
      date: 1,
      from: { id: BOT_ID, is_bot: true },
      reply_markup: { inline_keyboard: [[{ text: "How to answer", callback_data: how }]] },
    };
    // Someone else's reply is not an answer to Ann's run.
    expect((await send(message({ from: BOB, text: "Rome", reply_to_message: prompt }))).body).toEqual({
      status: "ignored",
    });
    expect((await send(message({ text: "Paris", reply_to_message: prompt }))).body).toEqual({ status: "processing" });
    await drain();
    expect(fake.texts().at(-1)).toBe("It is sunny.");
    const [run] = (await db.getRuns({})).data;
    expect(JSON.stringify(run!.run_data.tools)).toContain("sunny in Paris");
    expect(await script.requests()).toHaveLength(2);
  });

  it("gives the run the files a message brings (the largest photo size), fetched by the job and size-capped", async () => {
    const { fake, db, send, drain } = await setup([{ text: "A cat." }, { text: "A note." }, { text: "Too big." }], {
      maxFileBytes: 1024,
    });
    const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4]);
    fake.files.set("small", { bytes: new Uint8Array([0xff, 0xd8, 0xff]) });
    fake.files.set("large", { bytes: jpeg });
    fake.files.set("note", { bytes: new TextEncoder().encode("%PDF-1.4 remember the milk") });
    // Telegram does not always say how large a file is: the download itself is capped.
    fake.files.set("huge", { bytes: new Uint8Array(4096).fill(65), reportedSize: null });
    await send(
      message({
        caption: "what is this?",
        photo: [
          { file_id: "small", file_unique_id: "s", width: 90, height: 90, file_size: 3 },
          { file_id: "large", file_unique_id: "l", width: 800, height: 800, file_size: 8 },
        ],
      }),
    );
    await send(
      message({
        document: { file_id: "note", file_unique_id: "n", file_name: "note.pdf", mime_type: "application/pdf" },
      }),
    );
    await send(
      message({
        text: "read this",
        document: { file_id: "huge", file_unique_id: "h", file_name: "big.txt", mime_type: "text/plain" },
      }),
    );
    // Declared too large, or of a type runs cannot take: left out before anything is queued.
    expect(
      (
        await send(
          message({
            document: {
              file_id: "x",
              file_unique_id: "x",
              file_name: "movie.bin",
              mime_type: "application/x-bin",
              file_size: 10,
            },
          }),
        )
      ).body,
    ).toEqual({ status: "ignored" });
    await drain();

    expect(fake.downloads.sort()).toEqual(["documents/huge.bin", "documents/large.bin", "documents/note.bin"]);
    const runs = (await db.getRuns({})).data.map((r) => r.run_data as unknown as RunOutput);
    const photoRun = runs.find((r) => r.input.input_content === "what is this?")!;
    expect(photoRun.input.images).toHaveLength(1);
    const noteRun = runs.find((r) => r.input.files?.length)!;
    expect(noteRun.input.files![0]).toMatchObject({ filename: "note.pdf" });
    expect(runs.find((r) => r.input.input_content === "read this")!.input.files ?? []).toEqual([]);
    expect(fake.texts().filter((t) => t.startsWith("I could not read"))).toEqual([
      "I could not read: movie.bin (application/x-bin is not a type I can read)",
      "I could not read: big.txt (larger than 0 MB)",
    ]);
  });

  it("splits a long answer at Telegram's limit on paragraph breaks, each part valid HTML", async () => {
    const paragraph = (i: number) => `**Part ${i}** ${"word & <tag> ".repeat(60).trim()}`;
    const long = Array.from({ length: 12 }, (_, i) => paragraph(i)).join("\n\n");
    const { fake, send, drain } = await setup([{ text: long }]);
    await send(message({ text: "write a lot" }));
    await drain();
    const parts = fake.texts();
    expect(parts.length).toBeGreaterThan(2);
    const visible = parts.map((p) => parseTelegramHtml(p) as string);
    for (const v of visible) expect(v.length).toBeLessThanOrEqual(4096);
    // Cut between paragraphs: each part starts with a paragraph's title.
    for (const v of visible) expect(v).toMatch(/^Part \d+ word/);
    expect(visible.join("\n\n")).toBe(long.replace(/\*\*/g, ""));
    expect(fake.of("sendMessage")[0]!.reply_parameters).toBeDefined();
    expect(fake.of("sendMessage")[1]!.reply_parameters).toBeUndefined();
  });

  it("retries a post Telegram refused (5xx, then 429) from the job, without running the model again", async () => {
    const { fake, db, send, drain, script } = await setup([{ text: "Once." }]);
    fake.fail("sendMessage", 1, 502);
    fake.fail("sendMessage", 1, 429, 1);
    await send(message({ text: "hi" }));
    await drain();
    expect(fake.of("sendMessage")).toHaveLength(3);
    expect(fake.texts()).toEqual(["Once.", "Once.", "Once."]);
    expect(await script.requests()).toHaveLength(1);
    const [job] = (await db.jobs.listJobs({ limit: 10, page: 1 })).data;
    expect(job).toMatchObject({ status: "COMPLETED", attempt: 3 });
  });

  it("shows typing on the first event of the run, then at most once per interval", async () => {
    const fake = await new FakeTelegram({ token: TOKEN }).start();
    servers.push(fake);
    const api = new TelegramApi({ token: TOKEN, apiUrl: fake.url });
    const ctx = { api, componentType: "agent", errorMessage: "x", maxFileBytes: 1 };
    const target = { interface: "/telegram", chat_id: 5, thread_id: 9 };
    const throttled = telegramFollower({ ...ctx, typingEveryMs: 60_000 }, target);
    for (let i = 0; i < 3; i++) await throttled.onEvent!({} as never);
    expect(fake.of("sendChatAction")).toEqual([{ chat_id: 5, message_thread_id: 9, action: "typing" }]);
    const eager = telegramFollower({ ...ctx, typingEveryMs: 0 }, target);
    for (let i = 0; i < 2; i++) await eager.onEvent!({} as never);
    expect(fake.of("sendChatAction")).toHaveLength(3);
  });

  it("posts the error message when the run fails", async () => {
    const failing: Turn = { error: { status: 400, message: "bad request" } };
    const { fake, send, drain } = await setup([failing, failing, failing]);
    await send(message({ text: "hi" }));
    await drain();
    expect(fake.texts()).toEqual(["Sorry, there was an error processing your message."]);
  });

  it("serves a public status probe and lists itself in /config", async () => {
    const { os, services } = await setup([]);
    const status = await os.fetch(new Request("http://os/telegram/status"), services);
    expect(status.status).toBe(200);
    expect(await status.json()).toEqual({ status: "available" });
    const config = await os.fetch(
      new Request("http://os/config", { headers: { authorization: "Bearer os-key" } }),
      services,
    );
    expect(((await config.json()) as { interfaces: unknown }).interfaces).toEqual([
      { type: "telegram", version: "1.0", route: "/telegram" },
    ]);
  });

  const updateOf = (msg: Record<string, unknown>) =>
    JSON.stringify({
      update_id: 9,
      message: { message_id: 1, date: 1, from: ANN, chat: { id: 42, type: "private" }, ...msg },
    });
  const refused: Array<[string, { body?: unknown; headers?: Record<string, string> }, number]> = [
    ["no secret header", { headers: { "x-telegram-bot-api-secret-token": "" } }, 401],
    ["a wrong secret", { headers: { "x-telegram-bot-api-secret-token": "wrong" } }, 401],
    ["the secret in another case", { headers: { "x-telegram-bot-api-secret-token": SECRET.toUpperCase() } }, 401],
    ["a prefix of the secret", { headers: { "x-telegram-bot-api-secret-token": SECRET.slice(0, -1) } }, 401],
    ["the secret and more", { headers: { "x-telegram-bot-api-secret-token": `${SECRET}x` } }, 401],
    [
      "the secret with one character changed",
      { headers: { "x-telegram-bot-api-secret-token": `x${SECRET.slice(1)}` } },
      401,
    ],
    ["a body over the limit", { body: updateOf({ text: "x".repeat(300 * 1024) }) }, 413],
    ["a body over the AgentOS limit", { body: "x".repeat(1100 * 1024) }, 413],
    ["malformed JSON", { body: '{"update_id": 1, "message": ' }, 422],
    ["bytes that are not UTF-8", { body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]) }, 422],
    ["a JSON array", { body: "[]" }, 422],
    ["JSON null", { body: "null" }, 422],
    ["no update_id", { body: JSON.stringify({ message: {} }) }, 422],
    ["a string update_id", { body: JSON.stringify({ update_id: "1" }) }, 422],
    ["a fractional update_id", { body: JSON.stringify({ update_id: 1.5 }) }, 422],
    [
      "a message without chat",
      { body: JSON.stringify({ update_id: 1, message: { message_id: 1, from: ANN, text: "hi" } }) },
      422,
    ],
    [
      "a string chat id",
      {
        body: JSON.stringify({
          update_id: 1,
          message: { message_id: 1, from: ANN, chat: { id: "42", type: "private" }, text: "hi" },
        }),
      },
      422,
    ],
    ["a numeric text", { body: updateOf({ text: 5 }) }, 422],
    ["a string user id", { body: updateOf({ from: { id: "42" }, text: "hi" }) }, 422],
    ["photo not a list", { body: updateOf({ photo: { file_id: "a" } }) }, 422],
    ["a NUL in the text", { body: updateOf({ text: "a\u0000b" }) }, 422],
    ["a lone surrogate in the text", { body: updateOf({ text: "a\ud800b" }) }, 422],
    ["a text longer than Telegram allows", { body: updateOf({ text: "x".repeat(10_001) }) }, 422],
    [
      "a press without its presser",
      { body: JSON.stringify({ update_id: 1, callback_query: { id: "c", data: "y:r:0" } }) },
      422,
    ],
    [
      "a press with data over 64 bytes",
      { body: JSON.stringify({ update_id: 1, callback_query: { id: "c", from: ANN, data: "y".repeat(65) } }) },
      422,
    ],
  ];
  it.each(refused)("refuses %s with {detail, error_id}, queueing and posting nothing", async (_name, input, status) => {
    const { fake, db, send } = await setup([]);
    const res = await send(input.body ?? updateOf({ text: "hi" }), input.headers ?? {});
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ detail: expect.any(String), error_id: expect.any(String) });
    expect(JSON.stringify(res.body)).not.toContain(SECRET);
    expect(await db.jobs.queueStats()).toMatchObject({ pending: 0 });
    expect(fake.calls).toEqual([]);
  });

  const ignored: Array<[string, Record<string, unknown>]> = [
    ["an edited message", { edited_message: { message_id: 1, date: 1, chat: { id: 42, type: "private" }, text: "x" } }],
    ["a channel post", { channel_post: { message_id: 1, date: 1, chat: { id: -5, type: "channel" }, text: "x" } }],
    ["a membership change", { my_chat_member: { chat: { id: 42, type: "private" } } }],
    [
      "a message from a bot",
      {
        message: {
          message_id: 1,
          date: 1,
          from: { id: 9, is_bot: true },
          chat: { id: 42, type: "private" },
          text: "x",
        },
      },
    ],
    [
      "a message without a sender",
      { message: { message_id: 1, date: 1, chat: { id: 42, type: "private" }, text: "x" } },
    ],
    [
      "a message with nothing to read",
      { message: { message_id: 1, date: 1, from: ANN, chat: { id: 42, type: "private" }, sticker: { file_id: "s" } } },
    ],
    ["a press of a button that is not ours", { callback_query: { id: "c", from: ANN, data: "something else" } }],
  ];
  it.each(ignored)("answers %s 200 ignored and queues nothing (Telegram must not resend it)", async (_name, kind) => {
    const { db, send } = await setup([]);
    expect(await send({ update_id: 1, ...kind })).toEqual({ status: 200, body: { status: "ignored" } });
    expect(await db.jobs.queueStats()).toMatchObject({ pending: 0 });
  });

  it("refuses to be built without a valid token or webhook secret, never quoting them", async () => {
    const { agent } = await setup([]);
    expect(() => new Telegram({ agent, token: TOKEN, webhookSecret: "" })).toThrow(/webhookSecret of 1-256/);
    expect(() => new Telegram({ agent, token: TOKEN, webhookSecret: "has spaces!" })).toThrow(/webhookSecret/);
    expect(() => new Telegram({ agent, token: TOKEN, webhookSecret: undefined as unknown as string })).toThrow(
      /webhookSecret/,
    );
    expect(() => new Telegram({ agent, token: "not-a-token", webhookSecret: SECRET })).toThrow(/token/);
    expect(() => new Telegram({ token: TOKEN, webhookSecret: SECRET })).toThrow(
      /exactly one of agent, team or workflow/,
    );
    try {
      new Telegram({ agent, token: "leaky-token-value", webhookSecret: SECRET });
    } catch (error) {
      expect(String(error)).not.toContain("leaky-token-value");
    }
  });
});

describe("Telegram HTML", () => {
  const hostile = [
    "<script>alert(1)</script>",
    "a & b &amp; c &lt; &#60;",
    "**bold <i>not a tag</i>**",
    "**a *b** c*",
    "[click](javascript:alert(1))",
    '[x](https://example.com/"onmouseover="alert(1))',
    "`<b>` and ```\n<pre>&</pre>\n```",
    "```js\nif (a < b && c > d) {}\n```",
    "\uE0000\uE001 private placeholders \uE000",
    "unclosed **bold and `code",
    "_it_ __b__ ~~s~~ # not heading",
    "</b></i><b>",
    "emoji 😀 & <ok>",
  ];
  it.each(hostile)("converts %j to HTML Telegram parses, showing the text's < > & as text", (text) => {
    const html = markdownToTelegramHtml(text);
    expect(isTelegramHtml(html)).toBe(true);
    const shown = parseTelegramHtml(html);
    expect(typeof shown).toBe("string");
    for (const raw of ["<script>", "<i>not a tag</i>", "</b></i><b>"])
      if (text.includes(raw)) expect(shown).toContain(raw);
    expect(html).not.toMatch(/href="javascript:/);
    expect(html).not.toMatch(/href="[^"]*"[^>]+>/);
  });

  it("converts the model's Markdown basics", () => {
    expect(markdownToTelegramHtml("# Title\n**b** *i* _i_ ~~s~~ `c` [l](https://x.io/a_(b))\n- item")).toBe(
      '<b>Title</b>\n<b>b</b> <i>i</i> <i>i</i> <s>s</s> <code>c</code> <a href="https://x.io/a_(b)">l</a>\n• item',
    );
    expect(markdownToTelegramHtml("```py\nprint(1 < 2)\n```")).toBe(
      '<pre><code class="language-py">print(1 &lt; 2)</code></pre>',
    );
  });

  it("splits never inside an entity, a surrogate pair or a tag, closing and reopening formatting", () => {
    const entities = splitTelegramHtml("&amp;".repeat(10), 3);
    expect(entities).toEqual(["&amp;&amp;&amp;", "&amp;&amp;&amp;", "&amp;&amp;&amp;", "&amp;"]);
    const emoji = splitTelegramHtml("😀😀😀", 3);
    expect(emoji).toEqual(["😀", "😀", "😀"]);
    const nested = splitTelegramHtml('<b>bold <a href="https://x.io">link text</a></b>', 8);
    for (const part of nested) expect(isTelegramHtml(part)).toBe(true);
    expect(nested.map((p) => parseTelegramHtml(p)).join(" ")).toBe("bold link text");
    expect(nested).toEqual([
      "<b>bold</b>",
      '<b><a href="https://x.io">link</a></b>',
      '<b><a href="https://x.io">text</a></b>',
    ]);
    // A paragraph break is preferred to a later space, a space to a hard cut.
    expect(splitTelegramHtml("aaaa\n\nbbbb cccc dddd", 12)).toEqual(["aaaa", "bbbb cccc", "dddd"]);
    expect(splitTelegramHtml("abcdefghij", 4)).toEqual(["abcd", "efgh", "ij"]);
  });
});

describe("Telegram settings and webhook setup", () => {
  it("sets the webhook with the secret and the update kinds handled, by function and by npm script", async () => {
    const fake = await new FakeTelegram({ token: TOKEN }).start();
    servers.push(fake);
    const set = await setTelegramWebhook({
      token: TOKEN,
      secret: SECRET,
      apiUrl: fake.url,
      url: "https://bot.example.dev/",
    });
    expect(set.url).toBe("https://bot.example.dev/telegram/webhook");
    expect(fake.of("setWebhook")).toEqual([
      {
        url: "https://bot.example.dev/telegram/webhook",
        secret_token: SECRET,
        allowed_updates: ["message", "callback_query"],
      },
    ]);
    await expect(
      setTelegramWebhook({ token: TOKEN, secret: SECRET, apiUrl: fake.url, url: "http://bot.example.dev" }),
    ).rejects.toThrow(/https/);

    const root = resolve(import.meta.dirname, "../..");
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "scripts/telegram-webhook.ts", "https://w.example.dev", "/tg"],
      {
        cwd: root,
        env: { ...process.env, TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_WEBHOOK_SECRET: SECRET, TELEGRAM_API_URL: fake.url },
      },
    );
    expect(stdout).toContain("webhook set to https://w.example.dev/tg/webhook: true");
    expect(stdout).not.toContain(TOKEN);
    expect(fake.of("setWebhook").at(-1)).toMatchObject({
      url: "https://w.example.dev/tg/webhook",
      secret_token: SECRET,
    });
  });
});
