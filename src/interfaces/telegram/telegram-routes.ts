import { z } from "zod";
import { ValidationError } from "../../errors.js";
import { WebhookAuthError } from "../webhook-errors.js";
import { timingSafeEqual } from "../../os/auth/middleware.js";
import type { RequestServices } from "../../os/context.js";
import { errorResponse } from "../../os/errors.js";
import {
  defineRoute,
  errorSchema,
  handle,
  inputProblem,
  jsonAnswer,
  routeApp,
  validationError,
} from "../../os/route.js";
import { jobTraceparent } from "../../os/request-trace.js";
import type { InterfaceRouteDeps } from "../os-interface.js";
import { enqueueInterfaceRun } from "../enqueue-interface-run.js";
import { interfaceSessionId } from "../interface-session-id.js";
import { decodeButton } from "./callback-data.js";
import { filesOf } from "./message-files.js";
import type { Telegram } from "./telegram.js";
import { INLINE_TIMEOUT_MS, onInputReply, onPress, type WebhookStatus } from "./telegram-answers.js";
import type { TelegramTarget } from "./telegram-target.js";
import { telegramUpdate, type TelegramMessage, type TelegramUpdate } from "./telegram-update.js";

const statusBody = z.object({ status: z.string() });
const GROUP_TYPES = new Set(["group", "supergroup"]);

/**
 * `POST {prefix}/webhook`, where Telegram delivers updates, and `GET {prefix}/status`. The webhook
 * is public: it checks Telegram's secret token header itself, then reads the update. A message
 * becomes a queued run (answered by the job); a button press or a reply to an input request
 * queues the paused run's continue. Updates of kinds it does not handle answer 200 and queue
 * nothing, so Telegram does not send them again.
 */
export function telegramRoutes(tg: Telegram, deps: InterfaceRouteDeps) {
  const app = routeApp();
  const webhook = defineRoute({
    method: "post",
    path: `${tg.prefix}/webhook`,
    tags: ["Telegram"],
    summary: "Telegram webhook",
    description:
      "Telegram's updates (setWebhook with secret_token). Authenticated by the X-Telegram-Bot-Api-Secret-Token header, not by AgentOS credentials.",
    scope: null,
    authenticatedBy: "X-Telegram-Bot-Api-Secret-Token: the secret_token given to setWebhook",
    responses: {
      200: jsonAnswer(statusBody, "processing, duplicate (delivered before) or ignored"),
      401: jsonAnswer(errorSchema, "Missing or wrong secret token"),
      413: jsonAnswer(errorSchema, "Update larger than the limit"),
      422: jsonAnswer(errorSchema, "Not a Telegram update"),
    },
  });
  const status = defineRoute({
    method: "get",
    path: `${tg.prefix}/status`,
    tags: ["Telegram"],
    summary: "Telegram interface status",
    scope: null,
    responses: { 200: jsonAnswer(z.object({ status: z.literal("available") }), "The interface is mounted") },
  });

  handle(app, status, (c) => c.json({ status: "available" }));

  handle(app, webhook, async (c) => {
    if (!timingSafeEqual(c.req.header("x-telegram-bot-api-secret-token") ?? "", tg.webhookSecret))
      throw new WebhookAuthError("Invalid secret token");
    const tooLarge = () =>
      errorResponse(c, 413, `request body is larger than ${tg.maxBodyBytes} bytes`, "payload_too_large");
    if (Number(c.req.header("content-length") ?? 0) > tg.maxBodyBytes) return tooLarge();
    const raw = await c.req.raw.arrayBuffer();
    if (raw.byteLength > tg.maxBodyBytes) return tooLarge();
    const update = parseUpdate(raw);
    const answer = (s: WebhookStatus) => c.json({ status: s });
    const traceparent = () => jobTraceparent(c, tg.component.ref);
    if (update.callback_query) return answer(await onPress(tg, deps, c.env, update.callback_query, traceparent));
    if (update.message) return answer(await onMessage(tg, deps, c.env, update, update.message, traceparent));
    return answer("ignored");
  });
  return app;
}

function parseUpdate(raw: ArrayBuffer): TelegramUpdate {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(raw));
  } catch {
    throw new ValidationError("request body is not valid JSON", "body");
  }
  const parsed = telegramUpdate.safeParse(json);
  if (!parsed.success) throw validationError(parsed.error, "body");
  const problem = inputProblem(parsed.data, "body");
  if (problem) throw problem;
  return parsed.data;
}

type Services = RequestServices;

async function onMessage(
  tg: Telegram,
  deps: InterfaceRouteDeps,
  services: Services,
  update: TelegramUpdate,
  message: TelegramMessage,
  traceparent: () => string | undefined,
): Promise<WebhookStatus> {
  const from = message.from;
  if (!from || from.is_bot) return "ignored";
  const isGroup = GROUP_TYPES.has(message.chat.type);
  if (!isGroup && message.chat.type !== "private") return "ignored";
  const userId = String(from.id);
  const threadId = message.is_topic_message ? message.message_thread_id : undefined;
  const where = { chat_id: message.chat.id, ...(threadId !== undefined ? { message_thread_id: threadId } : {}) };
  let text = message.text ?? message.caption ?? "";

  const command = /^\/([A-Za-z0-9_]+)(?:@([A-Za-z0-9_]+))?(?:\s|$)/.exec(text);
  if (command) {
    // A command addressed to another bot in the group is not ours.
    if (command[2] && command[2].toLowerCase() !== (await tg.username()).toLowerCase()) return "ignored";
    const reply = command[1] === "start" ? tg.startMessage : command[1] === "help" ? tg.helpMessage : undefined;
    if (reply !== undefined) {
      await tg.api.call("sendMessage", { ...where, text: reply }, { timeoutMs: INLINE_TIMEOUT_MS });
      return "processing";
    }
  }

  const repliesToBot = message.reply_to_message?.from?.id === tg.api.botId;
  const inputRequest = repliesToBot ? decodeButton(firstButton(message.reply_to_message)) : null;
  if (inputRequest?.action === "input")
    return onInputReply(tg, deps, services, update, message, inputRequest, traceparent);

  if (isGroup) {
    const username = text.includes("@") || message.entities?.length ? await tg.username() : "";
    if (tg.replyToMentionsOnly && !repliesToBot && !mentions(message, username, tg.api.botId)) return "ignored";
    if (username) text = text.replace(new RegExp(`@${username}\\b`, "gi"), "").trim();
  }

  const { files, skipped } = filesOf(message, tg.maxFileBytes);
  if (!text.trim() && files.length === 0) {
    if (skipped.length)
      await tg.api
        .call(
          "sendMessage",
          { ...where, text: `I could not read: ${skipped.join(", ")}` },
          { timeoutMs: INLINE_TIMEOUT_MS },
        )
        .catch(() => undefined);
    return "ignored";
  }
  const conversation = threadId !== undefined ? `${message.chat.id}:${threadId}` : String(message.chat.id);
  const reply: TelegramTarget = {
    interface: tg.prefix,
    chat_id: message.chat.id,
    ...(threadId !== undefined ? { thread_id: threadId } : {}),
    reply_to: message.message_id,
    ...(files.length ? { files } : {}),
    ...(skipped.length ? { skipped } : {}),
  };
  const { created } = await enqueueInterfaceRun(services, deps.queue, tg, {
    message: text,
    sessionId: interfaceSessionId(tg.type, conversation, userId),
    userId,
    // update_id counts per bot: two bots on one deployment may share numbers.
    eventKey: `${tg.api.botId}:${update.update_id}`,
    reply,
    traceparent: traceparent(),
  });
  return created ? "processing" : "duplicate";
}

/** Whether a group message names the bot: `@username` in its text, or a mention entity of the bot. */
function mentions(message: TelegramMessage, username: string, botId: number): boolean {
  const text = message.text ?? message.caption ?? "";
  const entities = message.entities ?? message.caption_entities ?? [];
  if (entities.some((e) => e.type === "text_mention" && e.user?.id === botId)) return true;
  return username !== "" && new RegExp(`@${username}\\b`, "i").test(text);
}

function firstButton(quoted: TelegramMessage["reply_to_message"]): string | undefined {
  return quoted?.reply_markup?.inline_keyboard?.[0]?.[0]?.callback_data;
}
