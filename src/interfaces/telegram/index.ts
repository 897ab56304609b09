export {
  Telegram,
  DEFAULT_ERROR_MESSAGE,
  DEFAULT_HELP_MESSAGE,
  DEFAULT_START_MESSAGE,
  type TelegramOptions,
} from "./telegram.js";
export { TelegramApi, TelegramApiError, DEFAULT_TELEGRAM_API_URL, type TelegramApiOptions } from "./telegram-api.js";
export { escapeHtml, markdownToTelegramHtml, isTelegramHtml } from "./telegram-html.js";
export { splitTelegramHtml, TELEGRAM_MESSAGE_LIMIT } from "./split-html.js";
export { setTelegramWebhook, type SetWebhookOptions } from "./set-webhook.js";
export type { TelegramTarget } from "./telegram-target.js";
