import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { scriptModel } from "../support/model-script.js";
import { recordedCalls } from "../support/recorded-calls.js";
import { until } from "../support/until.js";
import { WORKERS_PLATFORMS } from "../support/workers-platforms.js";
import { send } from "./worker-client.js";

/*
 * The chat interfaces as a deployment runs them: a webhook reaches the Worker, the JobQueue
 * object runs the assistant, and the interface posts the answer from inside workerd over HTTP to
 * the fake platform the global setup started, which records what it got.
 */

const queueModel = (text: string) => scriptModel(env.MODEL_SERVER_URL, [{ text }], { channel: "queue" });
const unique = () => crypto.randomUUID().replace(/-/g, "").slice(0, 10);

async function hmacHex(secret: string, data: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(data)));
  return [...mac].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Posts `body` to a webhook as the platform would (no AgentOS credentials: the route checks its own). */
const deliver = (path: string, body: string, headers: Record<string, string>) =>
  send(path, { method: "POST", headers: { "content-type": "application/json", ...headers }, body }, {}, {});

describe("chat interfaces answer from inside workerd", () => {
  it("Slack: a mention becomes a queued run, answered in its thread through the Web API; a redelivery posts nothing more", async () => {
    await queueModel("Hello from the edge, Slack.");
    const channel = `C${unique()}`.toUpperCase();
    const ts = `${Math.floor(Date.now() / 1000)}.000100`;
    const body = JSON.stringify({
      type: "event_callback",
      team_id: "TWORKERS",
      api_app_id: "AWORKERS",
      event_id: `Ev${unique()}`,
      authorizations: [{ user_id: "UBOT" }],
      event: { type: "app_mention", channel, channel_type: "channel", user: "UANN", text: "<@UBOT> hello", ts },
    });
    const stamp = String(Math.floor(Date.now() / 1000));
    const headers = {
      "x-slack-request-timestamp": stamp,
      "x-slack-signature": `v0=${await hmacHex(env.SLACK_SIGNING_SECRET, `v0:${stamp}:${body}`)}`,
    };
    expect((await deliver("/slack/events", body, headers)).status).toBe(200);
    // Slack redelivers a slow event with a retry header: the message is the same, so nothing runs twice.
    expect((await deliver("/slack/events", body, { ...headers, "x-slack-retry-num": "1" })).status).toBe(200);

    type Call = { method: string; args: Record<string, unknown>; authorized: boolean };
    const ofChannel = async () =>
      (await recordedCalls<Call>(env.SLACK_API_URL)).filter((c) => c.args.channel === channel);
    const calls = await until(
      ofChannel,
      (cs) => cs.some((c) => String(c.args.text ?? "").includes("Hello from the edge, Slack.")),
      "the answer posted to the thread",
    );
    const posts = calls.filter((c) => c.method === "chat.postMessage");
    expect(posts.length).toBeGreaterThan(0);
    expect(posts.every((c) => c.authorized && c.args.thread_ts === ts)).toBe(true);
    // The redelivery started no second run: one first post for the thread, no matter how long we look.
    await new Promise((r) => setTimeout(r, 1000));
    expect((await ofChannel()).filter((c) => c.method === "chat.postMessage")).toHaveLength(posts.length);
  });

  it("Telegram: a chat message becomes a queued run, answered in that chat with the bot token; a repeated update_id runs nothing", async () => {
    await queueModel("Hello from the edge, Telegram.");
    const chatId = 700_000_000 + Math.floor(Math.random() * 99_999_999);
    const body = JSON.stringify({
      update_id: Math.floor(Math.random() * 1e9),
      message: {
        message_id: 1,
        date: Math.floor(Date.now() / 1000),
        from: { id: chatId, is_bot: false, first_name: "Ann" },
        chat: { id: chatId, type: "private" },
        text: "hello",
      },
    });
    const headers = { "x-telegram-bot-api-secret-token": env.TELEGRAM_WEBHOOK_SECRET };
    expect((await deliver("/telegram/webhook", body, headers)).status).toBe(200);
    expect((await deliver("/telegram/webhook", body, headers)).status).toBe(200);

    type Call = { method: string; params: Record<string, unknown> };
    const ofChat = async () =>
      (await recordedCalls<Call>(env.TELEGRAM_API_URL)).filter((c) => String(c.params.chat_id) === String(chatId));
    const calls = await until(
      ofChat,
      (cs) =>
        cs.some((c) => c.method === "sendMessage" && String(c.params.text).includes("Hello from the edge, Telegram.")),
      "the answer sent to the chat",
    );
    await new Promise((r) => setTimeout(r, 1000));
    expect((await ofChat()).filter((c) => c.method === "sendMessage")).toHaveLength(
      calls.filter((c) => c.method === "sendMessage").length,
    );
  });

  it("WhatsApp: a signed delivery becomes a queued run, answered through the Cloud API; a repeated message id runs nothing", async () => {
    await queueModel("Hello from the edge, WhatsApp.");
    const from = `1555${String(Math.floor(Math.random() * 1e7)).padStart(7, "0")}`;
    const body = JSON.stringify({
      object: "whatsapp_business_account",
      entry: [
        {
          id: "102290129340398",
          changes: [
            {
              field: "messages",
              value: {
                messaging_product: "whatsapp",
                metadata: { display_phone_number: "15550783881", phone_number_id: env.WHATSAPP_PHONE_NUMBER_ID },
                contacts: [{ profile: { name: "Ann" }, wa_id: from }],
                messages: [
                  {
                    from,
                    id: `wamid.${unique()}`,
                    timestamp: String(Math.floor(Date.now() / 1000)),
                    type: "text",
                    text: { body: "hello" },
                  },
                ],
              },
            },
          ],
        },
      ],
    });
    const headers = { "x-hub-signature-256": `sha256=${await hmacHex(env.WHATSAPP_APP_SECRET, body)}` };
    expect((await deliver("/whatsapp/webhook", body, headers)).status).toBe(200);
    expect((await deliver("/whatsapp/webhook", body, headers)).status).toBe(200);

    type Call = { method: string; path: string; authorization?: string; body?: Record<string, unknown> };
    const toUser = async () => (await recordedCalls<Call>(env.WHATSAPP_API_URL)).filter((c) => c.body?.to === from);
    const calls = await until(
      toUser,
      (cs) => cs.some((c) => JSON.stringify(c.body).includes("Hello from the edge, WhatsApp.")),
      "the answer sent to the user",
    );
    const texts = calls.filter((c) => c.body?.type === "text");
    expect(texts.every((c) => c.authorization === `Bearer ${WORKERS_PLATFORMS.whatsapp.accessToken}`)).toBe(true);
    expect(texts[0]!.path).toBe(`/v25.0/${env.WHATSAPP_PHONE_NUMBER_ID}/messages`);
    await new Promise((r) => setTimeout(r, 1000));
    expect((await toUser()).filter((c) => c.body?.type === "text")).toHaveLength(texts.length);
  });
});
