import type { RunOutput } from "../../agent/run-output.js";
import { NotConfiguredError, NotFoundError } from "../../errors.js";
import type { RequestServices } from "../../os/context.js";
import type { StepRequirement } from "../../workflow/step-requirement.js";
import type { InterfaceRouteDeps } from "../os-interface.js";
import { enqueueInterfaceContinue } from "../enqueue-interface-continue.js";
import { decodeButton, type ButtonPress } from "./callback-data.js";
import { inputFields, parseUserInput } from "./paused-prompts.js";
import type { Telegram } from "./telegram.js";
import type { TelegramTarget } from "./telegram-target.js";
import type { TelegramCallbackQuery, TelegramMessage, TelegramUpdate } from "./telegram-update.js";

/** agno's webhook answers: queued (or answered), a redelivery of one already queued, or nothing to do. */
export type WebhookStatus = "processing" | "duplicate" | "ignored";

/** How long the webhook waits on Telegram for what it answers itself (commands, button toasts). */
export const INLINE_TIMEOUT_MS = 3_000;

type Services = RequestServices;

// How a chat answers a paused run: a button press (approve, reject) or a reply to an input
// request. Each is checked against the stored run and who may answer it before the continue is
// queued; a press that may not count is told so in a toast and queues nothing.

/** The stored run a press or reply names, when the presser may answer it; else null. */
async function pressedRun(services: Services, runId: string, userId: string, isAdmin: boolean) {
  const db = services.dbs[0];
  if (!db) throw new NotConfiguredError("no database is configured: set DATABASE_URL");
  const row = await db.getRun(runId, isAdmin ? {} : { userId });
  return row ? (row.run_data as unknown as RunOutput) : null;
}

/** A button press: approve or reject what a paused run waits on, for its user or an admin only. */
export async function onPress(
  tg: Telegram,
  deps: InterfaceRouteDeps,
  services: Services,
  query: TelegramCallbackQuery,
  traceparent: () => string | undefined,
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
    traceparent,
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
export async function onInputReply(
  tg: Telegram,
  deps: InterfaceRouteDeps,
  services: Services,
  update: TelegramUpdate,
  message: TelegramMessage,
  press: ButtonPress,
  traceparent: () => string | undefined,
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
    traceparent,
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
  p: {
    runId: string;
    userId: string;
    isAdmin: boolean;
    resolution: object;
    actionKey: string;
    reply: TelegramTarget;
    traceparent: () => string | undefined;
  },
): Promise<WebhookStatus | null> {
  try {
    const { created } = await enqueueInterfaceContinue(services, deps.queue, tg, {
      runId: p.runId,
      userId: p.userId,
      resolutions: [p.resolution],
      actionKey: p.actionKey,
      isAdmin: p.isAdmin,
      reply: p.reply,
      traceparent: p.traceparent(),
    });
    return created ? "processing" : "duplicate";
  } catch (error) {
    if (error instanceof NotFoundError) return null;
    throw error;
  }
}
