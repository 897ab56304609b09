import { z } from "zod";
import { SUPPORTED_MIME_TYPES, type MediaKind } from "../../agent/media.js";
import type { RunOutput } from "../../agent/run-output.js";
import { ForbiddenError, NotConfiguredError, NotFoundError, ValidationError } from "../../errors.js";
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
import type { StepRequirement } from "../../workflow/step-requirement.js";
import type { InterfaceRouteDeps } from "../chat-interface.js";
import { enqueueInterfaceContinue } from "../enqueue-interface-continue.js";
import { enqueueInterfaceRun } from "../enqueue-interface-run.js";
import { interfaceSessionId } from "../interface-session-id.js";
import { decodeButton, type ButtonPress } from "./callback-data.js";
import { inputFields, parseUserInput } from "./paused-prompts.js";
import type { Telegram } from "./telegram.js";
import type { TelegramFileRef, TelegramTarget } from "./telegram-target.js";
import {
  telegramUpdate,
  type TelegramCallbackQuery,
  type TelegramMessage,
  type TelegramUpdate,
} from "./telegram-update.js";

/** agno's webhook answers: queued (or answered), a redelivery of one already queued, or nothing to do. */
type WebhookStatus = "processing" | "duplicate" | "ignored";

const statusBody = z.object({ status: z.string() });
const GROUP_TYPES = new Set(["group", "supergroup"]);
/** How long the webhook waits on Telegram for what it answers itself (commands, button toasts). */
const INLINE_TIMEOUT_MS = 3_000;

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
    responses: {
      200: jsonAnswer(statusBody, "processing, duplicate (delivered before) or ignored"),
      403: jsonAnswer(errorSchema, "Missing or wrong secret token"),
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
      throw new ForbiddenError("Invalid secret token");
    const tooLarge = () =>
      errorResponse(c, 413, `request body is larger than ${tg.maxBodyBytes} bytes`, "payload_too_large");
    if (Number(c.req.header("content-length") ?? 0) > tg.maxBodyBytes) return tooLarge();
    const raw = await c.req.raw.arrayBuffer();
    if (raw.byteLength > tg.maxBodyBytes) return tooLarge();
    const update = parseUpdate(raw);
    const answer = (s: WebhookStatus) => c.json({ status: s });
    if (update.callback_query) return answer(await onPress(tg, deps, c.env, update.callback_query));
    if (update.message) return answer(await onMessage(tg, deps, c.env, update, update.message));
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
  if (inputRequest?.action === "input") return onInputReply(tg, deps, services, update, message, inputRequest);

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

/** The files a message brings that a run can take, and the names of those it cannot. */
function filesOf(message: TelegramMessage, maxBytes: number): { files: TelegramFileRef[]; skipped: string[] } {
  const candidates: Array<{ file_id: string; file_size?: number; kind: MediaKind; mime: string; name?: string }> = [];
  // Telegram sends a photo in several sizes, the largest last.
  const photo = message.photo?.at(-1);
  if (photo) candidates.push({ ...photo, kind: "image", mime: "image/jpeg", name: "photo" });
  if (message.voice)
    candidates.push({
      ...message.voice,
      kind: "audio",
      mime: message.voice.mime_type ?? "audio/ogg",
      name: "voice message",
    });
  if (message.audio)
    candidates.push({
      ...message.audio,
      kind: "audio",
      mime: message.audio.mime_type ?? "audio/mpeg",
      name: message.audio.file_name ?? "audio",
    });
  if (message.document) {
    const mime = (message.document.mime_type ?? "application/octet-stream").toLowerCase();
    const kind: MediaKind = mime.startsWith("image/")
      ? "image"
      : mime.startsWith("audio/")
        ? "audio"
        : mime.startsWith("video/")
          ? "video"
          : "file";
    candidates.push({ ...message.document, kind, mime, name: message.document.file_name ?? "document" });
  }
  const files: TelegramFileRef[] = [];
  const skipped: string[] = [];
  for (const f of candidates) {
    const name = f.name ?? f.kind;
    if ((f.file_size ?? 0) > maxBytes) skipped.push(`${name} (larger than ${Math.floor(maxBytes / (1024 * 1024))} MB)`);
    else if (!SUPPORTED_MIME_TYPES[f.kind].has(f.mime)) skipped.push(`${name} (${f.mime} is not a type I can read)`);
    else
      files.push({
        file_id: f.file_id,
        kind: f.kind,
        mime_type: f.mime,
        ...(f.kind === "file" && f.name ? { file_name: f.name } : {}),
      });
  }
  return { files, skipped };
}

/** The stored run a press or reply names, when the presser may answer it; else null. */
async function pressedRun(services: Services, runId: string, userId: string, isAdmin: boolean) {
  const db = services.dbs[0];
  if (!db) throw new NotConfiguredError("no database is configured: set DATABASE_URL");
  const row = await db.getRun(runId, isAdmin ? {} : { userId });
  return row ? (row.run_data as unknown as RunOutput) : null;
}

/** A button press: approve or reject what a paused run waits on, for its user or an admin only. */
async function onPress(
  tg: Telegram,
  deps: InterfaceRouteDeps,
  services: Services,
  query: TelegramCallbackQuery,
): Promise<WebhookStatus> {
  const toast = (text: string) =>
    tg.api
      .call("answerCallbackQuery", { callback_query_id: query.id, text }, { timeoutMs: INLINE_TIMEOUT_MS })
      .catch(() => undefined);
  const press = decodeButton(query.data);
  const message = query.message;
  if (!press || !message) {
    await toast("");
    return "ignored";
  }
  if (press.action === "input") {
    await toast("Reply to this message with your answer.");
    return "ignored";
  }
  const userId = String(query.from.id);
  const isAdmin = tg.admins.has(userId);
  const run = await pressedRun(services, press.runId, userId, isAdmin);
  const resolution = run && resolutionOf(tg, run, press, isAdmin);
  if (typeof resolution === "string" || !resolution) {
    await toast(resolution || "Only the person who asked (or an admin) can answer this.");
    return "ignored";
  }
  const threadId = message.is_topic_message ? message.message_thread_id : undefined;
  const continued = await continueRun(tg, deps, services, {
    runId: press.runId,
    userId,
    isAdmin,
    resolution,
    actionKey: `press:${query.id}`,
    reply: {
      interface: tg.prefix,
      chat_id: message.chat.id,
      ...(threadId !== undefined ? { thread_id: threadId } : {}),
      reply_to: message.message_id,
      pressed: message.message_id,
    },
  });
  if (continued === null) {
    await toast("Only the person who asked (or an admin) can answer this.");
    return "ignored";
  }
  await toast(press.action === "approve" ? "Approved" : "Rejected");
  return continued;
}

/** The resolution a press makes, or why it cannot be made (a toast for the presser). */
function resolutionOf(tg: Telegram, run: RunOutput, press: ButtonPress, isAdmin: boolean): object | string {
  const confirmed = press.action === "approve";
  if (tg.component.ref.type === "workflow") {
    const steps = (run as { step_requirements?: StepRequirement[] }).step_requirements ?? [];
    const step = steps[press.index];
    if (run.status !== "PAUSED" || !step || press.index !== steps.length - 1 || !step.requires_confirmation)
      return "This has been answered already.";
    return { step_id: step.step_id, confirmed };
  }
  const requirement = run.requirements?.[press.index];
  if (run.status !== "PAUSED" || !requirement || requirement.resolved || requirement.kind !== "confirmation")
    return "This has been answered already.";
  if (requirement.requires_admin && !isAdmin) return "Only an admin may approve this.";
  return { id: requirement.id, confirmed };
}

/** A reply to an input request: its text is the value the paused run waits on. */
async function onInputReply(
  tg: Telegram,
  deps: InterfaceRouteDeps,
  services: Services,
  update: TelegramUpdate,
  message: TelegramMessage,
  press: ButtonPress,
): Promise<WebhookStatus> {
  const userId = String(message.from!.id);
  const isAdmin = tg.admins.has(userId);
  const threadId = message.is_topic_message ? message.message_thread_id : undefined;
  const where = { chat_id: message.chat.id, ...(threadId !== undefined ? { message_thread_id: threadId } : {}) };
  const tell = (text: string) =>
    tg.api
      .call(
        "sendMessage",
        { ...where, text, reply_parameters: { message_id: message.message_id, allow_sending_without_reply: true } },
        { timeoutMs: INLINE_TIMEOUT_MS },
      )
      .catch(() => undefined);
  const run = await pressedRun(services, press.runId, userId, isAdmin);
  const requirement = run?.status === "PAUSED" ? run.requirements?.[press.index] : undefined;
  if (!run) {
    await tell("Only the person who asked (or an admin) can answer this.");
    return "ignored";
  }
  if (!requirement || requirement.resolved || requirement.kind !== "user_input") {
    await tell("This has been answered already.");
    return "ignored";
  }
  const fields = inputFields(requirement);
  const values = parseUserInput(fields, message.text ?? "");
  if (!values) {
    await tell(
      fields.length > 1
        ? `Please answer with one line per field: ${fields.map((f) => `${f.name}: …`).join(", ")}`
        : "Please answer with the value as text.",
    );
    return "ignored";
  }
  const continued = await continueRun(tg, deps, services, {
    runId: press.runId,
    userId,
    isAdmin,
    resolution: { id: requirement.id, user_input: values },
    actionKey: `reply:${tg.api.botId}:${update.update_id}`,
    reply: {
      interface: tg.prefix,
      chat_id: message.chat.id,
      ...(threadId !== undefined ? { thread_id: threadId } : {}),
      reply_to: message.message_id,
      pressed: message.reply_to_message!.message_id,
    },
  });
  if (continued === null) await tell("Only the person who asked (or an admin) can answer this.");
  return continued ?? "ignored";
}

/** Queues the continue; null when the run is not the presser's to answer. */
async function continueRun(
  tg: Telegram,
  deps: InterfaceRouteDeps,
  services: Services,
  p: { runId: string; userId: string; isAdmin: boolean; resolution: object; actionKey: string; reply: TelegramTarget },
): Promise<WebhookStatus | null> {
  try {
    const { created } = await enqueueInterfaceContinue(services, deps.queue, tg, {
      runId: p.runId,
      userId: p.userId,
      resolutions: [p.resolution],
      actionKey: p.actionKey,
      isAdmin: p.isAdmin,
      reply: p.reply,
    });
    return created ? "processing" : "duplicate";
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    throw error;
  }
}
