/**
 * `npm run telegram:webhook -- <deployed base URL> [prefix]`: points the Telegram bot's webhook at
 * a deployment. Reads TELEGRAM_BOT_TOKEN, TELEGRAM_WEBHOOK_SECRET and (optionally)
 * TELEGRAM_API_URL from the environment; prints what Telegram answered, never the token.
 */
import { setTelegramWebhook } from "../src/interfaces/telegram/set-webhook.js";
import { errorMessage } from "../src/errors.js";

const [url, prefix] = process.argv.slice(2);
const token = process.env.TELEGRAM_BOT_TOKEN;
const secret = process.env.TELEGRAM_WEBHOOK_SECRET;
if (!url || !token || !secret) {
  console.error(
    "usage: TELEGRAM_BOT_TOKEN=… TELEGRAM_WEBHOOK_SECRET=… npm run telegram:webhook -- https://<your worker> [/telegram]",
  );
  process.exit(2);
}
try {
  const set = await setTelegramWebhook({
    token,
    secret,
    url,
    ...(prefix ? { prefix } : {}),
    ...(process.env.TELEGRAM_API_URL ? { apiUrl: process.env.TELEGRAM_API_URL } : {}),
  });
  console.log(`webhook set to ${set.url}: ${JSON.stringify(set.result)}`);
} catch (error) {
  console.error(`setWebhook failed: ${errorMessage(error)}`);
  process.exit(1);
}
