import type { MediaInput } from "../../agent/media.js";
import type { RunOutput } from "../../agent/run-output.js";
import { errorMessage } from "../../errors.js";
import type { RunFollower } from "../run-follower.js";
import { pausedPrompts } from "./paused-prompts.js";
import { splitTelegramHtml } from "./split-html.js";
import type { InlineKeyboard, SendMessageParams, TelegramApi } from "./telegram-api.js";
import { escapeHtml, markdownToTelegramHtml } from "./telegram-html.js";
import type { TelegramTarget } from "./telegram-target.js";

/** What the follower needs of its Telegram interface. */
export interface TelegramFollowerContext {
  api: TelegramApi;
  componentType: string;
  errorMessage: string;
  maxFileBytes: number;
  /** how often "typing…" is sent again while the run works (Telegram shows it about five seconds) */
  typingEveryMs?: number;
}

/**
 * Answers a Telegram message's run: fetches the files it came with, shows "typing…" while the
 * run works, and posts its answer (formatted, split at Telegram's limit, as a reply to the
 * user's message, in its topic), its error message, or one message per pending requirement.
 */
export function telegramFollower(ctx: TelegramFollowerContext, target: TelegramTarget): RunFollower {
  const { api } = ctx;
  const typingEveryMs = ctx.typingEveryMs ?? 4_000;
  let lastTyping = -Infinity;
  const where = {
    chat_id: target.chat_id,
    ...(target.thread_id !== undefined ? { message_thread_id: target.thread_id } : {}),
  };

  const send = async (html: string, opts: { replyTo?: number; keyboard?: InlineKeyboard } = {}) => {
    const chunks = splitTelegramHtml(html);
    for (const [i, text] of chunks.entries()) {
      const params: SendMessageParams = {
        ...where,
        text,
        parse_mode: "HTML",
        link_preview_options: { is_disabled: true },
      };
      // A deleted original must not make the answer fail forever: it is then sent without the reply.
      if (i === 0 && opts.replyTo !== undefined)
        params.reply_parameters = { message_id: opts.replyTo, allow_sending_without_reply: true };
      if (i === chunks.length - 1 && opts.keyboard) params.reply_markup = opts.keyboard;
      await api.sendMessage(params);
    }
  };

  const notice = async (html: string) => {
    try {
      await send(html, { replyTo: target.reply_to });
    } catch (error) {
      console.error(`telegram: a notice could not be posted: ${errorMessage(error)}`);
    }
  };

  return {
    media:
      target.files?.length || target.skipped?.length
        ? async () => {
            const media: MediaInput[] = [];
            const skipped = [...(target.skipped ?? [])];
            for (const f of target.files ?? []) {
              const name = f.file_name ?? f.kind;
              const info = await api.getFile(f.file_id);
              const data =
                info.file_path && (info.file_size ?? 0) <= ctx.maxFileBytes
                  ? await api.download(info.file_path, ctx.maxFileBytes)
                  : null;
              if (!data) {
                skipped.push(`${name} (larger than ${Math.floor(ctx.maxFileBytes / (1024 * 1024))} MB)`);
                continue;
              }
              media.push({
                kind: f.kind,
                data,
                mimeType: f.mime_type,
                ...(f.file_name ? { filename: f.file_name } : {}),
              });
            }
            if (skipped.length) await notice(`I could not read: ${escapeHtml(skipped.join(", "))}`);
            return media;
          }
        : undefined,

    onEvent: async () => {
      const now = Date.now();
      if (now - lastTyping < typingEveryMs) return;
      lastTyping = now;
      await api.call("sendChatAction", { ...where, action: "typing" }, { timeoutMs: 3_000 });
    },

    onEnd: async (output: RunOutput) => {
      if (target.pressed !== undefined) {
        // The press is answered: its buttons go, so nobody presses them again (a second edit fails harmlessly).
        await api
          .call("editMessageReplyMarkup", {
            chat_id: target.chat_id,
            message_id: target.pressed,
            reply_markup: { inline_keyboard: [] },
          })
          .catch(() => undefined);
      }
      switch (output.status) {
        case "COMPLETED": {
          const text = contentText(output.content);
          if (text.trim()) await send(markdownToTelegramHtml(text), { replyTo: target.reply_to });
          return;
        }
        case "PAUSED":
          for (const prompt of pausedPrompts(output, ctx.componentType))
            await send(prompt.html, { replyTo: target.reply_to, keyboard: prompt.keyboard });
          return;
        case "CANCELLED":
          await send("The run was cancelled.", { replyTo: target.reply_to });
          return;
        default:
          await send(escapeHtml(ctx.errorMessage), { replyTo: target.reply_to });
      }
    },
  };
}

/** A run's content as text: structured output is shown as JSON. */
function contentText(content: unknown): string {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  return "```json\n" + JSON.stringify(content, null, 2) + "\n```";
}
