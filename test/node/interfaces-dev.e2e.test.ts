import { createHmac } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { startDev, type DevServer } from "../support/dev-server.js";
import { FakeSlack } from "../support/fake-slack.js";
import { FakeTelegram } from "../support/fake-telegram.js";
import { delivery, FakeWhatsApp, metaSignature, textMessage } from "../support/fake-whatsapp.js";
import { scriptModel } from "../support/model-script.js";
import { until } from "../support/until.js";

/**
 * The three chat interfaces as a user turns them on: `npm run dev` (wrangler dev over the example
 * app, its embedded Postgres and JobQueue object) with each platform's secrets set, the platforms'
 * APIs served by local fakes. A message to each bot is answered on its platform by the queue's job;
 * then the runtime is killed (-9) right after Telegram's webhook acknowledged a message whose run
 * is waiting on the model, and started again on the same state: the job runs there and the answer
 * is posted, once.
 */
const TELEGRAM_TOKEN = "123456:AAdev_e2e_telegram_token_000";
const TELEGRAM_SECRET = "dev_e2e_telegram_secret";
const SLACK_TOKEN = "xoxb-dev-e2e";
const SLACK_SECRET = "dev-e2e-slack-signing-secret";
const WA = { token: "dev-e2e-wa-token", phone: "1000000002", verify: "dev-e2e-verify", secret: "dev-e2e-app-secret" };

function telegramUpdate(updateId: number, chat: number, text: string) {
  return JSON.stringify({
    update_id: updateId,
    message: {
      message_id: updateId,
      date: Math.floor(Date.now() / 1000),
      chat: { id: chat, type: "private", first_name: "Ann" },
      from: { id: chat, is_bot: false, first_name: "Ann" },
      text,
    },
  });
}

describe("chat interfaces through npm run dev", () => {
  it("answers on Slack, Telegram and WhatsApp from the queue, and a message acknowledged before a kill -9 is answered after the restart", async () => {
    const telegram = await new FakeTelegram({ token: TELEGRAM_TOKEN, username: "agno_dev_bot" }).start();
    const slack = await new FakeSlack(SLACK_TOKEN).start();
    const whatsapp = await new FakeWhatsApp(WA.token, WA.phone).start();
    // The three greetings (any order), then the run the kill interrupts, then its run after the restart.
    const script = await scriptModel(inject("modelServerUrl"), [
      { text: "Hello from the bot." },
      { text: "Hello from the bot." },
      { text: "Hello from the bot." },
      { hang: true },
      { text: "Answered after the restart." },
    ]);
    const dataDir = mkdtempSync(join(tmpdir(), "agno-interfaces-dev-"));
    const env = {
      AGNO_DEV_DATA: dataDir,
      AGNO_DEV_CRON: "off",
      MODEL: "openai:gpt-test",
      OPENAI_BASE_URL: script.baseURL,
      OPENAI_API_KEY: "sk-local",
      // A dead runtime's job is claimed again this soon after the restart.
      AGNO_QUEUE_LEASE_SECONDS: "3",
      TELEGRAM_BOT_TOKEN: TELEGRAM_TOKEN,
      TELEGRAM_WEBHOOK_SECRET: TELEGRAM_SECRET,
      TELEGRAM_API_URL: telegram.url,
      SLACK_BOT_TOKEN: SLACK_TOKEN,
      SLACK_SIGNING_SECRET: SLACK_SECRET,
      SLACK_API_URL: `${slack.url}/api`,
      WHATSAPP_ACCESS_TOKEN: WA.token,
      WHATSAPP_PHONE_NUMBER_ID: WA.phone,
      WHATSAPP_VERIFY_TOKEN: WA.verify,
      WHATSAPP_APP_SECRET: WA.secret,
      WHATSAPP_API_URL: whatsapp.apiUrl,
    };
    let dev: DevServer | undefined;
    try {
      dev = await startDev(env);
      const url = dev.url;
      const config = (await (await fetch(`${url}/config`)).json()) as { interfaces: Array<{ type: string }> };
      expect(config.interfaces.map((i) => i.type)).toEqual(["slack", "telegram", "whatsapp", "a2a"]);

      // Telegram: the secret token header.
      const tg = await fetch(`${url}/telegram/webhook`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": TELEGRAM_SECRET },
        body: telegramUpdate(1, 501, "hi"),
      });
      expect(tg.status).toBe(200);
      // Slack: a signed app_mention.
      const slackBody = JSON.stringify({
        type: "event_callback",
        team_id: "T1",
        api_app_id: "A1",
        event_id: "Ev1",
        authorizations: [{ user_id: "UBOT" }],
        event: {
          type: "app_mention",
          channel: "C1",
          channel_type: "channel",
          user: "UANN",
          text: "<@UBOT> hi",
          ts: "1710000000.000001",
        },
      });
      const ts = String(Math.floor(Date.now() / 1000));
      const sl = await fetch(`${url}/slack/events`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-slack-request-timestamp": ts,
          "x-slack-signature": `v0=${createHmac("sha256", SLACK_SECRET).update(`v0:${ts}:${slackBody}`).digest("hex")}`,
        },
        body: slackBody,
      });
      expect(sl.status).toBe(200);
      // WhatsApp: a delivery signed with the app secret.
      const waBody = JSON.stringify(delivery(WA.phone, [textMessage("15551234567", "wamid.dev1", "hi")]));
      const wa = await fetch(`${url}/whatsapp/webhook`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-hub-signature-256": metaSignature(waBody, WA.secret) },
        body: waBody,
      });
      expect(wa.status).toBe(200);

      await until(
        async () => ({
          telegram: telegram.of("sendMessage").map((m) => m.text),
          slack: [...slack.messages.values()].map((m) => m.text),
          whatsapp: whatsapp.texts,
        }),
        (seen) =>
          seen.telegram.includes("Hello from the bot.") &&
          seen.slack.some((t) => t.includes("Hello from the bot.")) &&
          seen.whatsapp.includes("Hello from the bot."),
        "each platform's answer",
        { ms: 60_000, every: 250 },
      );
      expect(telegram.of("sendMessage")[0]).toMatchObject({ chat_id: 501 });
      expect([...slack.messages.values()][0]).toMatchObject({ channel: "C1", thread_ts: "1710000000.000001" });

      // A message whose run waits on the model when the runtime dies.
      const acked = await fetch(`${url}/telegram/webhook`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": TELEGRAM_SECRET },
        body: telegramUpdate(2, 777, "are you there?"),
      });
      expect(acked.status).toBe(200);
      await until(
        () => script.requests(),
        (r) => r.length >= 4,
        "the fourth model request",
        { ms: 30_000 },
      );
      await dev.kill();
      dev = undefined;
      expect(telegram.of("sendMessage").filter((m) => m.chat_id === 777)).toEqual([]);

      dev = await startDev(env);
      await until(
        async () => telegram.of("sendMessage").filter((m) => m.chat_id === 777),
        (sent) => sent.length >= 1,
        "the answer after the restart",
        { ms: 60_000, every: 250 },
      );
      // Telegram redelivers what a dead webhook did not acknowledge; this one was acknowledged, so
      // a redelivery now must start nothing.
      const again = await fetch(`${dev.url}/telegram/webhook`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": TELEGRAM_SECRET },
        body: telegramUpdate(2, 777, "are you there?"),
      });
      expect(await again.json()).toMatchObject({ status: "duplicate" });
      await new Promise((r) => setTimeout(r, 1000));
      expect(
        telegram
          .of("sendMessage")
          .filter((m) => m.chat_id === 777)
          .map((m) => m.text),
      ).toEqual(["Answered after the restart."]);
      expect(await script.requests()).toHaveLength(5);
    } finally {
      await dev?.stop();
      await telegram.close();
      await slack.stop();
      await whatsapp.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 240_000);
});
