import { describe, expect, it } from "vitest";
import { markdownToTelegramHtml, splitTelegramHtml } from "../../src/sdk.js";
import { readEnvConfig } from "../../src/worker/env-config.js";

const TOKEN = "123456:AAH-test_token_abcdefghijklmnop";
const SECRET = "s3cret_Webhook-token";

/** The Telegram interface's settings as a Worker reads them, and its formatting inside workerd. */
describe("Telegram in a Worker", () => {
  it("reads TELEGRAM_* from the env, naming a malformed one without quoting it", () => {
    const ok = readEnvConfig({ TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_WEBHOOK_SECRET: SECRET });
    expect(ok.ok && ok.config.telegram).toEqual({
      token: TOKEN,
      webhookSecret: SECRET,
      apiUrl: "https://api.telegram.org",
    });
    const bad = readEnvConfig({ TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_WEBHOOK_SECRET: "bad secret!" });
    expect(bad.ok).toBe(false);
    const message = bad.ok ? "" : bad.error.message;
    expect(message).toContain("TELEGRAM_WEBHOOK_SECRET");
    expect(message).not.toContain("bad secret!");
    const missing = readEnvConfig({ TELEGRAM_BOT_TOKEN: TOKEN });
    expect(missing.ok ? "" : missing.error.message).toMatch(/TELEGRAM_WEBHOOK_SECRET is required/);
    const url = readEnvConfig({
      TELEGRAM_BOT_TOKEN: TOKEN,
      TELEGRAM_WEBHOOK_SECRET: SECRET,
      TELEGRAM_API_URL: "ftp://x",
    });
    expect(url.ok ? "" : url.error.message).toContain("TELEGRAM_API_URL");
    const none = readEnvConfig({});
    expect(none.ok && "telegram" in none.config).toBe(false);
  });

  it("formats and splits an answer inside workerd (the SDK export has no Node-only import)", () => {
    const html = markdownToTelegramHtml("**hi** <there>");
    expect(html).toBe("<b>hi</b> &lt;there&gt;");
    expect(splitTelegramHtml(html, 3)).toEqual(["<b>hi</b>", "&lt;th", "ere", "&gt;"]);
  });
});
