import { spawn } from "node:child_process";
import { createHmac } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { startDev, type DevServer } from "../support/dev-server.js";
import { FakeSlack } from "../support/fake-slack.js";
import { FakeTelegram } from "../support/fake-telegram.js";
import { FakeWhatsApp } from "../support/fake-whatsapp.js";
import { scriptModel } from "../support/model-script.js";
import { until } from "../support/until.js";

/*
 * The README's bot sections, followed as a reader would: the variables its `wrangler secret put`
 * lines name, given to `npm run dev` as its "Trying a bot before you deploy" paragraph says; the
 * URLs its steps give (the Slack manifest's, the Telegram script's, Meta's callback) on the local
 * server instead of a deployed one; each platform served by a local fake. Nothing in the setup
 * knows a route or a variable the README does not state.
 *
 * Then, on the same server, the runtime is killed (-9) right after Telegram's webhook acknowledged
 * a message whose run is waiting on the model, and started again on the same state: the job runs
 * there and the answer is posted, once.
 */

const readme = readFileSync("README.md", "utf8");

/** The text from `heading` to the next heading of the same level or higher (lines in code blocks are not headings). */
function section(text: string, heading: string): string {
  const lines = text.split("\n");
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`README has no "${heading}"`);
  const level = heading.split(" ")[0]!.length;
  let fenced = false;
  let end = lines.length;
  for (let i = start + 1; i < lines.length; i++) {
    if (lines[i]!.startsWith("```")) fenced = !fenced;
    const hashes = /^(#+) /.exec(lines[i]!)?.[1]?.length;
    if (!fenced && hashes !== undefined && hashes <= level) {
      end = i;
      break;
    }
  }
  return lines.slice(start + 1, end).join("\n");
}

const chat = section(readme, "## Chat interfaces");
const docs = {
  slack: section(chat, "### Slack"),
  telegram: section(chat, "### Telegram"),
  whatsapp: section(chat, "### WhatsApp"),
};
const secretsOf = (doc: string) => [...doc.matchAll(/npx wrangler secret put ([A-Z_]+)/g)].map((m) => m[1]!);
/** The variable a section names for pointing the interface at another API server. */
const apiUrlVariableOf = (doc: string) => /\b([A-Z]+_API_URL)\b/.exec(doc)![1]!;
/** The paths of the `https://<placeholder>/path` URLs a section tells the reader to paste. */
const pastedPaths = (doc: string) => [...doc.matchAll(/`https:\/\/<[^>]+>(\/[^`?]+)`/g)].map((m) => m[1]!);

const hmacHex = (secret: string, data: string) => createHmac("sha256", secret).update(data).digest("hex");

/** The value a reader would paste for each secret the README names (what the platform gives them). */
const VALUES: Record<string, string> = {
  SLACK_BOT_TOKEN: "xoxb-readme-bot-token",
  SLACK_SIGNING_SECRET: "readme-slack-signing-secret",
  TELEGRAM_BOT_TOKEN: "123456789:AAreadme_telegram_token",
  TELEGRAM_WEBHOOK_SECRET: "readme_webhook_secret_0123456789",
  WHATSAPP_ACCESS_TOKEN: "readme-whatsapp-access-token",
  WHATSAPP_PHONE_NUMBER_ID: "1000000099",
  WHATSAPP_VERIFY_TOKEN: "readme-verify-token",
  WHATSAPP_APP_SECRET: "readme-whatsapp-app-secret",
};

function runScript(
  command: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    child.on("exit", (code) => resolve({ code, out }));
  });
}

describe("the README's chat interface sections, step by step, through npm run dev", () => {
  it("sets up Slack, Telegram and WhatsApp with only what the README says, each bot answers, and a message acknowledged before a kill -9 is answered after the restart", async () => {
    const secrets = {
      slack: secretsOf(docs.slack),
      telegram: secretsOf(docs.telegram),
      whatsapp: secretsOf(docs.whatsapp),
    };
    expect(secrets).toEqual({
      slack: ["SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET"],
      telegram: ["TELEGRAM_BOT_TOKEN", "TELEGRAM_WEBHOOK_SECRET"],
      whatsapp: ["WHATSAPP_ACCESS_TOKEN", "WHATSAPP_PHONE_NUMBER_ID", "WHATSAPP_VERIFY_TOKEN", "WHATSAPP_APP_SECRET"],
    });
    const slack = await new FakeSlack(VALUES.SLACK_BOT_TOKEN!).start();
    const telegram = await new FakeTelegram({ token: VALUES.TELEGRAM_BOT_TOKEN!, username: "readme_bot" }).start();
    const whatsapp = await new FakeWhatsApp(VALUES.WHATSAPP_ACCESS_TOKEN!, VALUES.WHATSAPP_PHONE_NUMBER_ID!).start();
    const script = await scriptModel(inject("modelServerUrl"), [
      { text: "Answer one." },
      { text: "Answer two." },
      { text: "Answer three." },
      { hang: true },
      { text: "Answered after the restart." },
    ]);
    const dataDir = mkdtempSync(join(tmpdir(), "agno-readme-bots-"));
    const env: Record<string, string> = {
      AGNO_DEV_DATA: dataDir,
      AGNO_DEV_CRON: "off",
      MODEL: "openai:gpt-test",
      OPENAI_BASE_URL: script.baseURL,
      OPENAI_API_KEY: "sk-local",
      // Not a bot setting: a dead runtime's job is claimed again this soon after the restart.
      AGNO_QUEUE_LEASE_SECONDS: "3",
      ...Object.fromEntries([...secrets.slack, ...secrets.telegram, ...secrets.whatsapp].map((k) => [k, VALUES[k]!])),
      [apiUrlVariableOf(docs.slack)]: slack.apiUrl,
      [apiUrlVariableOf(docs.telegram)]: telegram.url,
      [apiUrlVariableOf(docs.whatsapp)]: whatsapp.apiUrl,
    };
    let dev: DevServer | undefined;
    try {
      dev = await startDev(env);
      const base = dev.url;

      // Slack: the manifest the README names, with YOUR-WORKER-HOST replaced by the server's host.
      const manifestPath = /`(src\/interfaces\/slack\/manifest\.json)`/.exec(docs.slack)![1]!;
      const manifest = JSON.parse(readFileSync(manifestPath, "utf8").replaceAll("https://YOUR-WORKER-HOST", base)) as {
        oauth_config: { scopes: { bot: string[] } };
        settings: {
          event_subscriptions: { request_url: string; bot_events: string[] };
          interactivity: { request_url: string };
        };
      };
      const namedScopes = /bot scopes\s+the interface uses \(([^)]+)\)/.exec(docs.slack)![1]!.match(/`([^`]+)`/g)!;
      expect(manifest.oauth_config.scopes.bot.sort()).toEqual(namedScopes.map((s) => s.slice(1, -1)).sort());
      const [eventsPath, interactionsPath] = pastedPaths(docs.slack);
      expect(manifest.settings.event_subscriptions.request_url).toBe(`${base}${eventsPath}`);
      expect(manifest.settings.interactivity.request_url).toBe(`${base}${interactionsPath}`);
      const signedToSlackUrl = (url: string, body: string) => {
        const ts = String(Math.floor(Date.now() / 1000));
        return fetch(url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "x-slack-request-timestamp": ts,
            "x-slack-signature": `v0=${hmacHex(VALUES.SLACK_SIGNING_SECRET!, `v0:${ts}:${body}`)}`,
          },
          body,
        });
      };
      // Step 4: the Request URL shows Verified once Slack's challenge is answered.
      const verified = await signedToSlackUrl(
        manifest.settings.event_subscriptions.request_url,
        JSON.stringify({ token: "legacy", challenge: "readme-challenge", type: "url_verification" }),
      );
      expect(verified.status).toBe(200);
      expect(await verified.text()).toContain("readme-challenge");
      // Step 5: mention the bot in a channel.
      const mention = await signedToSlackUrl(
        manifest.settings.event_subscriptions.request_url,
        JSON.stringify({
          type: "event_callback",
          team_id: "TREADME",
          api_app_id: "AREADME",
          event_id: "EvReadme1",
          authorizations: [{ user_id: "UBOT" }],
          event: {
            type: "app_mention",
            channel: "CREADME",
            channel_type: "channel",
            user: "UREADER",
            text: "<@UBOT> hello",
            ts: "1720000000.000001",
          },
        }),
      );
      expect(mention.status).toBe(200);

      // Telegram step 4: the README's command, its placeholders filled, against the local server.
      const command = /^(.*)npm run telegram:webhook -- (\S+)$/m.exec(docs.telegram)!;
      const assigned = [...command[1]!.matchAll(/([A-Z_]+)=…/g)].map((m) => m[1]!);
      expect(assigned).toEqual(secrets.telegram);
      const set = await runScript("npm", ["run", "--silent", "telegram:webhook", "--", base], {
        ...Object.fromEntries(assigned.map((k) => [k, VALUES[k]!])),
        [apiUrlVariableOf(docs.telegram)]: telegram.url,
      });
      expect(set.code, set.out).toBe(0);
      expect(set.out).not.toContain(VALUES.TELEGRAM_BOT_TOKEN);
      const [setWebhook] = telegram.of("setWebhook");
      expect(setWebhook).toMatchObject({ secret_token: VALUES.TELEGRAM_WEBHOOK_SECRET });
      const webhookUrl = String(setWebhook!.url);
      const secretHeader = /`(X-Telegram-Bot-Api-Secret-Token)`/.exec(docs.telegram)![1]!;
      const statusPath = /`GET (\/telegram\/status)`/.exec(docs.telegram)![1]!;
      expect(await (await fetch(`${base}${statusPath}`)).json()).toEqual({ status: "available" });
      const update = await fetch(webhookUrl, {
        method: "POST",
        headers: { "content-type": "application/json", [secretHeader]: VALUES.TELEGRAM_WEBHOOK_SECRET! },
        body: JSON.stringify({
          update_id: 9001,
          message: {
            message_id: 1,
            date: Math.floor(Date.now() / 1000),
            chat: { id: 4242, type: "private", first_name: "Reader" },
            from: { id: 4242, is_bot: false, first_name: "Reader" },
            text: "hello",
          },
        }),
      });
      expect(update.status).toBe(200);

      // WhatsApp step 3: Meta's verification call to the callback URL, then a signed delivery.
      const [callbackPath] = pastedPaths(docs.whatsapp);
      const query = /`GET [^?`]+\?([^`]+)`/.exec(docs.whatsapp)![1]!;
      const verify = await fetch(
        `${base}${callbackPath}?${query
          .replace("hub.verify_token=…", `hub.verify_token=${VALUES.WHATSAPP_VERIFY_TOKEN}`)
          .replace("hub.challenge=…", "hub.challenge=readme-wa-challenge")}`,
      );
      expect(verify.status).toBe(200);
      expect(await verify.text()).toBe("readme-wa-challenge");
      const delivery = JSON.stringify({
        object: "whatsapp_business_account",
        entry: [
          {
            id: "1",
            changes: [
              {
                field: "messages",
                value: {
                  messaging_product: "whatsapp",
                  metadata: { display_phone_number: "15550000000", phone_number_id: VALUES.WHATSAPP_PHONE_NUMBER_ID },
                  contacts: [{ profile: { name: "Reader" }, wa_id: "15551112222" }],
                  messages: [
                    {
                      from: "15551112222",
                      id: "wamid.readme1",
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
      const delivered = await fetch(`${base}${callbackPath}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-hub-signature-256": `sha256=${hmacHex(VALUES.WHATSAPP_APP_SECRET!, delivery)}`,
        },
        body: delivery,
      });
      expect(delivered.status).toBe(200);

      const answers = await until(
        async () => ({
          slack: [...slack.messages.values()].filter((m) => m.channel === "CREADME").map((m) => m.text),
          telegram: telegram
            .of("sendMessage")
            .filter((m) => m.chat_id === 4242)
            .map((m) => String(m.text)),
          whatsapp: whatsapp.texts,
        }),
        (a) => a.slack.some((t) => t.startsWith("Answer")) && a.telegram.length > 0 && a.whatsapp.length > 0,
        "each bot's answer",
        { ms: 60_000, every: 250 },
      );
      expect([...answers.slack, ...answers.telegram, ...answers.whatsapp].sort()).toEqual([
        "Answer one.",
        "Answer three.",
        "Answer two.",
      ]);

      // A message whose run waits on the model when the runtime dies.
      const waiting = JSON.stringify({
        update_id: 9002,
        message: {
          message_id: 2,
          date: Math.floor(Date.now() / 1000),
          chat: { id: 777, type: "private", first_name: "Reader" },
          from: { id: 777, is_bot: false, first_name: "Reader" },
          text: "are you there?",
        },
      });
      const toTelegram = (url: string) =>
        fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", [secretHeader]: VALUES.TELEGRAM_WEBHOOK_SECRET! },
          body: waiting,
        });
      expect((await toTelegram(webhookUrl)).status).toBe(200);
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
      const again = await toTelegram(`${dev.url}${new URL(webhookUrl).pathname}`);
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
  }, 360_000);
});
