import { afterEach, describe, expect, it } from "vitest";
import { drainQueue } from "../support/drain-queue.js";
import { z } from "zod";
import { Agent } from "../../src/agent/agent.js";
import type { Component } from "../../src/agent/component.js";
import type { MemoryDb } from "../../src/db/memory/index.js";
import { WhatsApp } from "../../src/interfaces/whatsapp/index.js";
import { escapeWhatsApp, markdownToWhatsApp, splitMessage } from "../../src/interfaces/whatsapp/whatsapp-format.js";
import { buttonId, parseButtonId } from "../../src/interfaces/whatsapp/whatsapp-buttons.js";
import { AgentOS } from "../../src/os/agent-os.js";
import { tool } from "../../src/tools/tool.js";
import { HumanReview, Step, Workflow } from "../../src/sdk.js";
import { memoryTestDb, scriptedModel } from "../support/agent-kit.js";
import { delivery, FakeWhatsApp, metaSignature, textMessage } from "../support/fake-whatsapp.js";
import type { Turn } from "../support/model-script.js";

/**
 * The WhatsApp interface over HTTP, end to end: Meta's signed deliveries into the AgentOS, the
 * durable queue's jobs drained, and the answers posted to a fake Cloud API (a real HTTP server)
 * that checks them as Meta would.
 */
const TOKEN = "EAAG-access-token-secret";
const PHONE_ID = "106540352242922";
const VERIFY = "verify-me-please";
const SECRET = "app-secret-0123456789";
const ANN = "15551234567";
const BOB = "15557654321";
const ROOT = "15550000001";

const fakes: FakeWhatsApp[] = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((f) => f.stop()));
});

async function setup(
  turns: Turn[],
  opts: { admins?: string[]; maxFileBytes?: number; maxBodyBytes?: number; maxAttempts?: number } = {},
) {
  const fake = await new FakeWhatsApp(TOKEN, PHONE_ID).start();
  fakes.push(fake);
  const { db } = memoryTestDb();
  const { model, script } = await scriptedModel(turns, "openai", { maxRetries: 0 });
  const remove = tool({
    name: "delete_file",
    parameters: z.object({ path: z.string() }),
    requiresConfirmation: true,
    execute: ({ path }) => `deleted ${path}`,
  });
  const ask = tool({
    name: "ask_city",
    parameters: z.object({ city: z.string() }),
    requiresUserInput: true,
    execute: ({ city }) => city,
  });
  const agent = new Agent({ id: "helper", model, tools: [remove, ask], db });
  const wa = new WhatsApp({
    agent,
    accessToken: TOKEN,
    phoneNumberId: PHONE_ID,
    verifyToken: VERIFY,
    appSecret: SECRET,
    apiUrl: fake.apiUrl,
    admins: opts.admins,
    maxFileBytes: opts.maxFileBytes,
    maxBodyBytes: opts.maxBodyBytes,
  });
  const os = new AgentOS({
    agents: [agent],
    interfaces: [wa],
    queue: { durable: true, ...(opts.maxAttempts ? { maxAttempts: opts.maxAttempts } : {}) },
    auth: { mode: "security_key", securityKey: "os-key" },
  });
  const services = { dbs: [db], jobs: db.jobs, queue: { wake: async () => {} } };
  /** Posts `body` to the webhook, signed unless `signature` says otherwise. */
  const deliver = async (
    body: unknown,
    opts: { signature?: string | null; raw?: string | Buffer; headers?: Record<string, string> } = {},
  ) => {
    const raw = opts.raw ?? JSON.stringify(body);
    const signature = opts.signature === undefined ? metaSignature(raw, SECRET) : opts.signature;
    const res = await os.fetch(
      new Request("http://os/whatsapp/webhook", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(signature === null ? {} : { "x-hub-signature-256": signature }),
          ...opts.headers,
        },
        body: typeof raw === "string" ? raw : new Uint8Array(raw),
      }),
      services,
    );
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const verify = async (query: string) => {
    const res = await os.fetch(new Request(`http://os/whatsapp/webhook?${query}`), services);
    return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
  };
  return { db, os, wa, fake, agent, script, deliver, verify, drain: () => drain(db, [agent], wa) };
}

/** Runs every due job to its end, retries included (no backoff), as the JobQueue object would. */
function drain(db: MemoryDb, agents: Component[], wa: WhatsApp): Promise<void> {
  return drainQueue(db, { components: agents, interfaces: [wa] });
}

const say = (id: string, text: string, from = ANN) => delivery(PHONE_ID, [textMessage(from, id, text)]);

/** The press of a button the fake received, as WhatsApp delivers it. */
function press(from: string, id: string, button: { id: string; title: string }) {
  return delivery(PHONE_ID, [
    {
      from,
      id,
      timestamp: String(Math.floor(Date.now() / 1000)),
      type: "interactive",
      context: { from: "15550783881", id: "wamid.SENT1" },
      interactive: { type: "button_reply", button_reply: button },
    },
  ]);
}

function buttonsOf(fake: FakeWhatsApp): Array<{ id: string; title: string }> {
  const m = fake.messages.filter((x) => x.type === "interactive").at(-1) as {
    interactive: { action: { buttons: Array<{ reply: { id: string; title: string } }> } };
  };
  return m.interactive.action.buttons.map((b) => b.reply);
}

describe("WhatsApp interface", () => {
  it("answers Meta's webhook verification with the challenge, as text, only for the verify token", async () => {
    const { verify, os } = await setup([]);
    const auth = { headers: { authorization: "Bearer os-key" } };
    const config = (await (await os.fetch(new Request("http://os/config", auth), { dbs: [] })).json()) as {
      interfaces: unknown;
    };
    expect(config.interfaces).toEqual([{ type: "whatsapp", version: "1.0", route: "/whatsapp" }]);
    const spec = (await (await os.fetch(new Request("http://os/openapi.json", auth), { dbs: [] })).json()) as {
      paths: Record<string, Record<string, { security?: unknown }>>;
    };
    expect(spec.paths["/whatsapp/webhook"]?.post?.security).toEqual([]);
    expect(await verify(`hub.mode=subscribe&hub.verify_token=${VERIFY}&hub.challenge=1158201444`)).toMatchObject({
      status: 200,
      text: "1158201444",
      type: expect.stringMatching(/^text\/plain/),
    });
  });

  it("turns a message into one run answered in the sender's chat, however often Meta delivers it", async () => {
    const { db, fake, deliver, drain, script } = await setup([{ text: "Hello **Ann**, see `x_y`." }]);
    const first = await deliver(say("wamid.IN1", "hi"));
    expect(first).toEqual({ status: 200, body: { status: "processing", queued: 1, duplicates: 0, refused: 0 } });
    // Meta's retry before the run ran, and a replay after it: nothing new.
    expect((await deliver(say("wamid.IN1", "hi"))).body).toMatchObject({ queued: 0, duplicates: 1 });
    await drain();
    expect((await deliver(say("wamid.IN1", "hi"))).body).toMatchObject({ queued: 0, duplicates: 1 });
    await drain();

    expect(fake.texts).toEqual(["Hello *Ann*, see `x_y`."]);
    expect(fake.messages[0]).toMatchObject({ messaging_product: "whatsapp", to: ANN, type: "text" });
    // The user's message is marked read (with "typing…") when its run starts.
    expect(fake.calls.find((c) => c.body?.status === "read")?.body).toMatchObject({ message_id: "wamid.IN1" });
    expect(fake.calls.every((c) => c.authorization === `Bearer ${TOKEN}`)).toBe(true);
    expect(await script.requests()).toHaveLength(1);
    const [run] = (await db.getRuns({})).data;
    expect(run).toMatchObject({ status: "COMPLETED", user_id: ANN, session_id: `whatsapp:${ANN}:${ANN}` });
  });

  it("keeps each sender's session and user apart", async () => {
    const { db, fake, deliver, drain } = await setup([{ text: "One." }, { text: "Two." }]);
    await deliver(delivery(PHONE_ID, [textMessage(ANN, "wamid.A", "hi"), textMessage(BOB, "wamid.B", "hi")]));
    await drain();
    expect(fake.messages.map((m) => m.to).sort()).toEqual([ANN, BOB].sort());
    const runs = (await db.getRuns({})).data.map((r) => [r.user_id, r.session_id]).sort();
    expect(runs).toEqual(
      [
        [ANN, `whatsapp:${ANN}:${ANN}`],
        [BOB, `whatsapp:${BOB}:${BOB}`],
      ].sort(),
    );
  });

  it("posts Approve / Reject buttons for a paused run; only its user's press continues it, once", async () => {
    const { db, fake, deliver, drain, script } = await setup([
      { toolCalls: [{ id: "c1", name: "delete_file", arguments: { path: "/tmp/a" } }] },
      { text: "Deleted." },
    ]);
    await deliver(say("wamid.IN1", "delete /tmp/a"));
    await drain();
    const [approve, reject] = buttonsOf(fake);
    expect(approve!.title).toBe("Approve");
    expect(reject!.title).toBe("Reject");
    const [run] = (await db.getRuns({})).data;
    expect(run).toMatchObject({ status: "PAUSED" });
    expect(parseButtonId(approve!.id)).toEqual({ kind: "requirement", confirmed: true, runId: run!.run_id, id: "c1" });
    expect(fake.messages.at(-1)).toMatchObject({ to: ANN, type: "interactive" });

    // Bob presses Ann's button (a forged reply): refused, nothing queued, Meta not made to retry.
    expect((await deliver(press(BOB, "wamid.P0", approve!))).body).toMatchObject({ queued: 0, refused: 1 });
    expect(await db.jobs.queueStats()).toMatchObject({ pending: 0 });

    expect((await deliver(press(ANN, "wamid.P1", approve!))).body).toMatchObject({ queued: 1 });
    expect((await deliver(press(ANN, "wamid.P1", approve!))).body).toMatchObject({ queued: 0, duplicates: 1 });
    await drain();
    expect(fake.texts.at(-1)).toBe("Deleted.");
    expect((await db.getRun(run!.run_id))?.status).toBe("COMPLETED");
    expect(await script.requests()).toHaveLength(2);
  });

  it("says once, naming the run, when a paused run waits for input WhatsApp buttons cannot give", async () => {
    const { db, fake, deliver, drain } = await setup([
      {
        toolCalls: [
          { id: "u1", name: "ask_city", arguments: { city: "" } },
          { id: "u2", name: "ask_city", arguments: { city: "" } },
        ],
      },
    ]);
    await deliver(say("wamid.IN1", "weather?"));
    await drain();
    const [run] = (await db.getRuns({})).data;
    expect(run?.status).toBe("PAUSED");
    expect(fake.texts).toEqual([`This run waits for input that cannot be given from WhatsApp (run ${run!.run_id}).`]);
    expect(fake.messages.some((m) => m.type === "interactive")).toBe(false);
  });

  it("reads a button that is not one of its own, and a list reply, as the text the user chose", async () => {
    const { fake, deliver, drain, script } = await setup([{ text: "Blue it is." }, { text: "Noted." }]);
    expect((await deliver(press(ANN, "wamid.B1", { id: "color_blue", title: "Blue" }))).body).toMatchObject({
      queued: 1,
    });
    const list = delivery(PHONE_ID, [
      {
        from: ANN,
        id: "wamid.L1",
        timestamp: String(Math.floor(Date.now() / 1000)),
        type: "interactive",
        interactive: { type: "list_reply", list_reply: { id: "r1", title: "Plan B", description: "cheaper" } },
      },
    ]);
    expect((await deliver(list)).body).toMatchObject({ queued: 1 });
    await drain();
    const asked = (await script.requests()).map((r) => JSON.stringify(r.body));
    expect(asked.some((b) => b.includes('"Blue"'))).toBe(true);
    expect(asked.some((b) => b.includes("Plan B: cheaper"))).toBe(true);
    expect(fake.texts.sort()).toEqual(["Blue it is.", "Noted."]);
  });

  it("lets an admin the interface names answer another user's run", async () => {
    const { db, fake, deliver, drain } = await setup(
      [{ toolCalls: [{ id: "c1", name: "delete_file", arguments: { path: "/x" } }] }, { text: "Not deleted." }],
      { admins: [ROOT] },
    );
    await deliver(say("wamid.IN1", "delete /x"));
    await drain();
    const [, reject] = buttonsOf(fake);
    expect((await deliver(press(ROOT, "wamid.P1", reject!))).body).toMatchObject({ queued: 1, refused: 0 });
    await drain();
    const [run] = (await db.getRuns({})).data;
    const stored = await db.getRun(run!.run_id);
    expect(stored?.status).toBe("COMPLETED");
    // Root's Reject reached the tool: it was not run.
    expect(stored?.run_data.tools).toEqual([
      expect.objectContaining({ tool_name: "delete_file", result: "The user rejected this tool call" }),
    ]);
    expect(fake.texts.at(-1)).toBe("Not deleted.");
  });

  it("asks a paused workflow's step for confirmation with buttons, and runs it on Approve", async () => {
    const fake = await new FakeWhatsApp(TOKEN, PHONE_ID).start();
    fakes.push(fake);
    const { db } = memoryTestDb();
    const workflow = new Workflow({
      id: "publish",
      name: "publish",
      db,
      steps: [
        new Step({
          name: "publish",
          humanReview: new HumanReview({ requiresConfirmation: true, confirmationMessage: "Publish *now*?" }),
          executor: () => "Published.",
        }),
      ],
    });
    const wa = new WhatsApp({
      workflow,
      accessToken: TOKEN,
      phoneNumberId: PHONE_ID,
      verifyToken: VERIFY,
      appSecret: SECRET,
      apiUrl: fake.apiUrl,
    });
    const os = new AgentOS({
      workflows: [workflow],
      interfaces: [wa],
      queue: { durable: true },
      auth: { mode: "none" },
    });
    const services = { dbs: [db], jobs: db.jobs, queue: { wake: async () => {} } };
    const deliver = (body: unknown) => {
      const raw = JSON.stringify(body);
      return os.fetch(
        new Request("http://os/whatsapp/webhook", {
          method: "POST",
          headers: { "x-hub-signature-256": metaSignature(raw, SECRET) },
          body: raw,
        }),
        services,
      );
    };
    await deliver(say("wamid.W1", "publish it"));
    await drain(db, [workflow], wa);
    const interactive = fake.messages.at(-1) as { interactive: { body: { text: string } } };
    expect(interactive.interactive.body.text).toBe("Publish \u2217now\u2217?");
    const [approve] = buttonsOf(fake);
    expect(parseButtonId(approve!.id)).toMatchObject({ kind: "step", confirmed: true });
    expect((await deliver(press(ANN, "wamid.P1", approve!))).status).toBe(200);
    await drain(db, [workflow], wa);
    expect(fake.texts.at(-1)).toBe("Published.");
  });

  it("cuts a long answer at WhatsApp's 4096 characters, losing nothing", async () => {
    const paragraph = "word ".repeat(199) + "end.";
    const long = Array.from({ length: 12 }, () => paragraph).join("\n\n");
    const { fake, deliver, drain } = await setup([{ text: long, chunkSize: 2000 }]);
    await deliver(say("wamid.IN1", "tell me a lot"));
    await drain();
    expect(fake.texts.length).toBeGreaterThanOrEqual(3);
    expect(fake.texts.every((t) => t.length <= 4096)).toBe(true);
    expect(fake.texts.join(" ").replace(/\s+/g, " ")).toBe(long.replace(/\s+/g, " "));
  });

  it("retries a post the Cloud API refused with 5xx or 429, without running the model again", async () => {
    const { db, fake, deliver, drain, script } = await setup([{ text: "Once." }]);
    fake.failNext(1, 503);
    fake.failNext(1, 429, 0);
    await deliver(say("wamid.IN1", "hi"));
    await drain();
    expect(fake.texts).toEqual(["Once."]);
    expect(await script.requests()).toHaveLength(1);
    const [job] = (await db.jobs.listJobs({ limit: 10, page: 1 })).data;
    expect(job).toMatchObject({ status: "COMPLETED", attempt: 3 });
  });

  it("answers a failed run with a short error text", async () => {
    const { fake, deliver, drain } = await setup([{ error: { status: 400, message: "secret model detail" } }], {
      maxAttempts: 1,
    });
    await deliver(say("wamid.IN1", "hi"));
    await drain();
    expect(fake.texts).toEqual(["Sorry, there was an error processing your message. Please try again later."]);
  });

  it("gives the run the image the user sent, fetched in the job with the token", async () => {
    const png = Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
      "base64",
    );
    const { fake, deliver, drain, script } = await setup([{ text: "A dot." }]);
    fake.media.set("img-1", { bytes: png, mimeType: "image/png" });
    const image = {
      from: ANN,
      id: "wamid.IMG",
      timestamp: String(Math.floor(Date.now() / 1000)),
      type: "image",
      image: { id: "img-1", mime_type: "image/png", sha256: "x", caption: "What is this?" },
    };
    expect((await deliver(delivery(PHONE_ID, [image]))).body).toMatchObject({ queued: 1 });
    // The webhook only records where the file is: nothing is fetched before the job runs.
    expect(fake.calls).toEqual([]);
    await drain();
    const sent = JSON.stringify((await script.requests())[0]!.body);
    expect(sent).toContain("What is this?");
    expect(sent).toContain(png.toString("base64"));
    expect(fake.calls.map((c) => `${c.method} ${c.path}`)).toEqual(
      expect.arrayContaining(["GET /v25.0/img-1", "GET /download/img-1"]),
    );
    expect(fake.texts).toEqual(["A dot."]);
  });

  it("skips a file larger than maxFileBytes, and says so", async () => {
    const { fake, deliver, drain, script } = await setup([{ text: "No file seen." }], { maxFileBytes: 1000 });
    fake.media.set("doc-1", { bytes: new Uint8Array(5000), mimeType: "application/pdf" });
    const doc = {
      from: ANN,
      id: "wamid.DOC",
      timestamp: String(Math.floor(Date.now() / 1000)),
      type: "document",
      document: { id: "doc-1", mime_type: "application/pdf", filename: "big_report.pdf" },
    };
    await deliver(delivery(PHONE_ID, [doc]));
    await drain();
    expect(JSON.stringify((await script.requests())[0]!.body)).not.toContain("application/pdf");
    expect(fake.texts).toEqual([`big\uff3freport.pdf is larger than 1000 bytes and was not read.`, "No file seen."]);
    expect(fake.calls.some((c) => c.path.startsWith("/download/"))).toBe(false);
  });

  it("queues nothing for receipts, other numbers' messages, stale messages and types it does not read", async () => {
    const { db, fake, deliver } = await setup([]);
    const statuses = delivery(PHONE_ID, [], {
      statuses: [{ id: "wamid.SENT1", status: "delivered", timestamp: "1700000000", recipient_id: ANN }],
    });
    delete (statuses.entry[0]!.changes[0]!.value as { messages?: unknown }).messages;
    const now = Math.floor(Date.now() / 1000);
    for (const body of [
      statuses,
      delivery("999999999", [textMessage(ANN, "wamid.OTHER", "hi")]),
      delivery(PHONE_ID, [textMessage(ANN, "wamid.OLD", "hi", now - 8 * 86_400)]),
      delivery(PHONE_ID, [
        { from: ANN, id: "wamid.ST", timestamp: String(now), type: "sticker", sticker: { id: "s" } },
      ]),
      delivery(PHONE_ID, [{ from: ANN, id: "wamid.RE", timestamp: String(now), type: "reaction", reaction: {} }]),
    ])
      expect(await deliver(body)).toEqual({
        status: 200,
        body: { status: "ignored", queued: 0, duplicates: 0, refused: 0 },
      });
    expect(await db.jobs.queueStats()).toMatchObject({ pending: 0 });
    expect(fake.calls).toEqual([]);
  });

  describe("refuses bad input with {detail, error_id}, queueing nothing", () => {
    const ok = JSON.stringify(say("wamid.OK", "hi"));
    const msg = (m: Record<string, unknown>) => delivery(PHONE_ID, [{ ...textMessage(ANN, "wamid.X", "hi"), ...m }]);
    type Case = [string, { body?: unknown; raw?: string | Buffer; signature?: string | null }, number, string];
    const cases: Case[] = [
      ["no signature", { raw: ok, signature: null }, 401, "unauthorized"],
      ["an empty signature", { raw: ok, signature: "" }, 401, "unauthorized"],
      ["a signature without sha256=", { raw: ok, signature: metaSignature(ok, SECRET).slice(7) }, 401, "unauthorized"],
      ["a sha1 signature", { raw: ok, signature: "sha1=" + "a".repeat(40) }, 401, "unauthorized"],
      ["a truncated signature", { raw: ok, signature: metaSignature(ok, SECRET).slice(0, -1) }, 401, "unauthorized"],
      ["a signature under another secret", { raw: ok, signature: metaSignature(ok, "other") }, 401, "unauthorized"],
      [
        "a body altered after signing",
        { raw: ok.replace('"hi"', '"rm -rf"'), signature: metaSignature(ok, SECRET) },
        401,
        "unauthorized",
      ],
      [
        "a body over the interface's limit",
        { raw: ok.replace('"hi"', `"${"x".repeat(70_000)}"`) },
        413,
        "payload_too_large",
      ],
      ["a body over the API's limit", { raw: " ".repeat(1024 * 1024 + 1) }, 413, "payload_too_large"],
      ["malformed JSON", { raw: '{"object": "whatsapp_business_account",' }, 400, "bad_request"],
      ["bytes that are not UTF-8", { raw: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]) }, 400, "bad_request"],
      ["a JSON array", { body: [] }, 422, "validation_error"],
      [
        "another object than whatsapp_business_account",
        { body: { ...say("m", "hi"), object: "page" } },
        422,
        "validation_error",
      ],
      [
        "entry that is not a list",
        { body: { object: "whatsapp_business_account", entry: {} } },
        422,
        "validation_error",
      ],
      ["a message without from", { body: msg({ from: undefined }) }, 422, "validation_error"],
      ["a sender that is not a WhatsApp id", { body: msg({ from: "ann" }) }, 422, "validation_error"],
      ["an empty message id", { body: msg({ id: "" }) }, 422, "validation_error"],
      ["a message id with a control character", { body: msg({ id: "wamid.\u0001" }) }, 422, "validation_error"],
      ["a timestamp that is not unix seconds", { body: msg({ timestamp: "yesterday" }) }, 422, "validation_error"],
      ["a text message without text", { body: msg({ text: undefined }) }, 422, "validation_error"],
      ["a text body that is a number", { body: msg({ text: { body: 42 } }) }, 422, "validation_error"],
      [
        "a text longer than WhatsApp allows",
        { body: msg({ text: { body: "x".repeat(4097) } }) },
        422,
        "validation_error",
      ],
      ["a text holding NUL", { body: msg({ text: { body: "a\u0000b" } }) }, 422, "validation_error"],
      ["a video message without its video", { body: msg({ type: "video" }) }, 422, "validation_error"],
      [
        "an image without its id",
        { body: msg({ type: "image", image: { mime_type: "image/png" } }) },
        422,
        "validation_error",
      ],
      [
        "a button_reply without its reply",
        { body: msg({ type: "interactive", interactive: { type: "button_reply" } }) },
        422,
        "validation_error",
      ],
      [
        "a button id over 256 characters",
        {
          body: msg({
            type: "interactive",
            interactive: { type: "button_reply", button_reply: { id: "x".repeat(257), title: "Approve" } },
          }),
        },
        422,
        "validation_error",
      ],
      [
        "a good message beside a bad one",
        {
          body: delivery(PHONE_ID, [
            textMessage(ANN, "wamid.GOOD", "hi"),
            { ...textMessage(ANN, "wamid.BAD", "hi"), from: 1 },
          ]),
        },
        422,
        "validation_error",
      ],
    ];
    it.each(cases)("%s", async (_name, input, status, errorId) => {
      const { db, fake, deliver } = await setup([], { maxBodyBytes: 64 * 1024 });
      const res = await deliver(input.body, { raw: input.raw, signature: input.signature });
      expect(res.status).toBe(status);
      expect(res.body).toMatchObject({ detail: expect.any(String), error_id: errorId });
      expect(JSON.stringify(res.body)).not.toContain(SECRET);
      expect(await db.jobs.queueStats()).toMatchObject({ pending: 0, running: 0 });
      expect((await db.getRuns({})).data).toEqual([]);
      expect(fake.calls).toEqual([]);
    });

    const verifyCases: Array<[string, string, number, string]> = [
      ["a wrong verify token", `hub.mode=subscribe&hub.verify_token=nope&hub.challenge=1`, 403, "forbidden"],
      ["no verify token", `hub.mode=subscribe&hub.challenge=1`, 403, "forbidden"],
      [
        "a mode other than subscribe",
        `hub.mode=unsubscribe&hub.verify_token=${VERIFY}&hub.challenge=1`,
        403,
        "forbidden",
      ],
      ["no challenge", `hub.mode=subscribe&hub.verify_token=${VERIFY}`, 400, "bad_request"],
      [
        "a challenge with markup",
        `hub.mode=subscribe&hub.verify_token=${VERIFY}&hub.challenge=%3Cb%3E%20x`,
        400,
        "bad_request",
      ],
    ];
    it.each(verifyCases)("verification with %s", async (_name, query, status, errorId) => {
      const { verify } = await setup([]);
      const res = await verify(query);
      expect(res.status).toBe(status);
      expect(JSON.parse(res.text)).toMatchObject({ detail: expect.any(String), error_id: errorId });
      expect(res.text).not.toContain(VERIFY);
    });
  });
});

describe("WhatsApp formatting", () => {
  it("writes Markdown as WhatsApp formatting", () => {
    expect(markdownToWhatsApp("# Title\n**bold** and *it* and _it_ and ~~gone~~\n- one\n* two")).toBe(
      "*Title*\n*bold* and _it_ and _it_ and ~gone~\n- one\n- two",
    );
    expect(markdownToWhatsApp("see [the docs](https://x.io/a_b) or https://y.io/c_d_e")).toBe(
      "see the docs (https://x.io/a_b) or https://y.io/c_d_e",
    );
    expect(markdownToWhatsApp("```js\nconst a_b = 2*3*4;\n```")).toBe("```const a_b = 2*3*4;```");
  });

  it("makes markers that are text inert, whatever the model writes", () => {
    const hostile = [
      ["2*3*4", "2\u22173\u22174"],
      ["snake_case_name", "snake\uff3fcase\uff3fname"],
      ["*", "\u2217"],
      ["~~", "\u223c\u223c"],
      ["` ``` `", "\uff40 \uff40\uff40\uff40 \uff40"],
      ["**", "\u2217\u2217"],
      ["_ not italic _", "\uff3f not italic \uff3f"],
      ["* not bold *", "- not bold \u2217"],
    ];
    for (const [input, output] of hostile) expect(markdownToWhatsApp(input!)).toBe(output);
    expect(escapeWhatsApp("*_~`")).toBe("\u2217\uff3f\u223c\uff40");
    // A fence inside a block cannot close it early.
    expect(markdownToWhatsApp("```\na ``` *b*\n```")).toBe("```a \uff40\uff40\uff40 *b*```");
  });

  it("cuts at a break, never inside a surrogate pair, and closes and reopens a cut code block", () => {
    expect(splitMessage("a".repeat(20) + " " + "b".repeat(20), 30)).toEqual(["a".repeat(20), "b".repeat(20)]);
    const emoji = "😀".repeat(30);
    const parts = splitMessage(emoji, 31);
    expect(parts.join("")).toBe(emoji);
    expect(parts.every((p) => !/^[\udc00-\udfff]/.test(p) && p.length <= 31)).toBe(true);
    const code = splitMessage("```" + "line\n".repeat(20) + "```", 40);
    expect(code.every((p) => (p.match(/```/g)?.length ?? 0) % 2 === 0 && p.length <= 40)).toBe(true);
  });

  it("encodes a press in a reply id WhatsApp accepts, and reads back only its own", () => {
    const press = {
      kind: "requirement" as const,
      confirmed: true,
      runId: "7e0b6a8e-1c5f-4f7b-9c1d-2b3f4a5e6d7c",
      id: "call_1:x",
    };
    expect(parseButtonId(buttonId(press)!)).toEqual(press);
    expect(buttonId({ ...press, id: "x".repeat(300) })).toBeUndefined();
    expect(parseButtonId("yes_please")).toBeUndefined();
    expect(parseButtonId("agno:rq:run:id")).toBeUndefined();
  });
});

describe("WhatsApp configuration", () => {
  it("refuses a missing secret by name, never quoting what was given", () => {
    const { db } = memoryTestDb();
    const agent = new Agent({ id: "a", model: "openai:gpt-test" as never, db });
    const base = { agent, accessToken: TOKEN, phoneNumberId: PHONE_ID, verifyToken: VERIFY, appSecret: SECRET };
    expect(() => new WhatsApp({ ...base, appSecret: "" })).toThrow(/needs appSecret/);
    expect(() => new WhatsApp({ ...base, apiUrl: "ftp://x" })).toThrow(/apiUrl/);
    expect(() => new WhatsApp({ ...base, maxFileBytes: -1 })).toThrow(/maxFileBytes/);
  });
});
