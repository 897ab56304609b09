import { SUPPORTED_MIME_TYPES, type MediaInput, type MediaKind } from "../../agent/media.js";
import type { RunOutput, RunRequirement } from "../../agent/run-output.js";
import type { ReplyTarget } from "../reply-target.js";
import type { RunFollower } from "../run-follower.js";
import type { StepRequirement } from "../../workflow/step-requirement.js";
import type { WhatsAppApi } from "./whatsapp-api.js";
import { buttonId, type ButtonPress } from "./whatsapp-buttons.js";
import { escapeWhatsApp, markdownToWhatsApp, splitMessage } from "./whatsapp-format.js";

/** A file the user sent, as the webhook recorded it: the job fetches it. */
export interface PendingMedia {
  id: string;
  kind: MediaKind;
  mime_type?: string;
  filename?: string;
}

/** Where a WhatsApp run is answered: the user's number, and the message that started it. */
export interface WhatsAppReply extends ReplyTarget {
  /** the user's WhatsApp id: the chat to answer in */
  to: string;
  /** the message being answered, marked read when its run starts */
  message_id?: string;
  media?: PendingMedia[];
}

/** agno's words for a run that failed. */
export const ERROR_TEXT = "Sorry, there was an error processing your message. Please try again later.";
/** WhatsApp's bounds: a text message's body, and an interactive message's body. */
export const MAX_TEXT = 4096;
const MAX_BUTTON_BODY = 1024;

type Outgoing = { text: string } | { text: string; buttons: Array<{ id: string; title: string }> };

/**
 * Follows a run for the user who sent its message: fetches their files when the job starts,
 * then posts the answer (Markdown as WhatsApp formatting, cut at WhatsApp's limit), the Approve /
 * Reject buttons of what a paused run waits for, or a short error. A post the Cloud API refuses
 * throws, so the job posts again without running the component again.
 */
export function whatsappFollower(api: WhatsAppApi, target: WhatsAppReply, opts: { maxFileBytes: number }): RunFollower {
  const notes: string[] = [];
  return {
    async media() {
      // Read receipts and "typing…" are courtesy: their failure must not cost the answer.
      if (target.message_id) await api.markRead(target.message_id).catch(() => undefined);
      const out: MediaInput[] = [];
      for (const m of target.media ?? []) {
        const name = m.filename ?? `your ${m.kind === "file" ? "document" : m.kind}`;
        try {
          const file = await api.downloadMedia(m.id, opts.maxFileBytes);
          if ("tooLarge" in file) {
            notes.push(`${name} is larger than ${opts.maxFileBytes} bytes and was not read.`);
            continue;
          }
          const mimeType = (m.mime_type ?? file.mimeType).split(";")[0]!.trim().toLowerCase();
          if (!SUPPORTED_MIME_TYPES[m.kind].has(mimeType)) {
            notes.push(`${name} (${mimeType || "unknown type"}) is a type I cannot read.`);
            continue;
          }
          out.push({ kind: m.kind, data: file.bytes, mimeType, ...(m.filename ? { filename: m.filename } : {}) });
        } catch {
          notes.push(`${name} could not be downloaded.`);
        }
      }
      return out;
    },

    async onEnd(output: RunOutput) {
      const messages: Outgoing[] = notes.map((n) => ({ text: escapeWhatsApp(n) }));
      if (output.status === "ERROR") messages.push({ text: ERROR_TEXT });
      else if (output.status === "CANCELLED") messages.push({ text: "The run was cancelled." });
      else {
        const content = contentText(output.content);
        if (content.trim())
          messages.push(...splitMessage(markdownToWhatsApp(content), MAX_TEXT).map((text) => ({ text })));
        if (output.status === "PAUSED") messages.push(...pausedMessages(output));
      }
      for (const m of messages) {
        if ("buttons" in m) await api.sendButtons(target.to, m.text, m.buttons);
        else await api.sendText(target.to, m.text);
      }
    },
  };
}

function contentText(content: unknown): string {
  if (content === undefined || content === null) return "";
  return typeof content === "string" ? content : JSON.stringify(content, null, 2);
}

/** What a paused run waits for: buttons for a yes or no, a note for what cannot be given here. */
function pausedMessages(output: RunOutput): Outgoing[] {
  const out: Outgoing[] = [];
  const steps = (output as { step_requirements?: StepRequirement[] }).step_requirements;
  const step = steps?.at(-1);
  if (step && step.confirmed === null && (step.requires_confirmation || step.requires_output_review)) {
    const what = step.requires_output_review
      ? (step.output_review_message ?? `Review the output of step ${step.step_name ?? step.step_id}.`)
      : (step.confirmation_message ?? `Run step ${step.step_name ?? step.step_id}?`);
    out.push(buttons(output.run_id, "step", step.step_id, escapeWhatsApp(what)));
  }
  let unanswerable = step !== undefined && step.confirmed === null && out.length === 0;
  for (const req of output.requirements ?? []) {
    if (req.resolved) continue;
    const asked =
      req.kind === "confirmation" ? buttons(output.run_id, "requirement", req.id, describe(req)) : undefined;
    if (asked && "buttons" in asked) out.push(asked);
    else unanswerable = true;
  }
  // Input, external results or an id too long for a button: said once, with the run to answer over the API.
  if (unanswerable) out.push(cannotAnswer(output.run_id));
  return out;
}

function describe(req: RunRequirement): string {
  const args = JSON.stringify(req.tool_execution.tool_args ?? {}, null, 1);
  const who = req.member_agent_name ? ` (${escapeWhatsApp(req.member_agent_name)})` : "";
  return `*Approve this action?*${who}\n${escapeWhatsApp(req.tool_execution.tool_name)}\n\`\`\`${args.slice(0, 800).replace(/```/g, "\uff40\uff40\uff40")}\`\`\``;
}

function buttons(runId: string, kind: ButtonPress["kind"], id: string, body: string): Outgoing {
  const approve = buttonId({ kind, confirmed: true, runId, id });
  const reject = buttonId({ kind, confirmed: false, runId, id });
  if (!approve || !reject) return cannotAnswer(runId);
  return {
    text:
      body.length > MAX_BUTTON_BODY ? `${body.slice(0, MAX_BUTTON_BODY - 1).replace(/[\ud800-\udbff]$/, "")}…` : body,
    buttons: [
      { id: approve, title: "Approve" },
      { id: reject, title: "Reject" },
    ],
  };
}

function cannotAnswer(runId: string): Outgoing {
  return { text: `This run waits for input that cannot be given from WhatsApp (run ${runId}).` };
}
