import type { RunEvent } from "../../agent/events.js";
import { SUPPORTED_MIME_TYPES, type MediaInput, type MediaKind } from "../../agent/media.js";
import type { RunOutput, RunRequirement } from "../../agent/run-output.js";
import { errorMessage } from "../../errors.js";
import type { RunFollower } from "../run-follower.js";
import { markdownToMrkdwn } from "./markdown-to-mrkdwn.js";
import type { SlackApi, SlackPlace } from "./slack-api.js";
import { SlackApiError } from "./slack-errors.js";
import { approvalBlocks, describeRequirement } from "./slack-hitl-blocks.js";
import type { SlackTarget } from "./slack-target.js";
import { SLACK_MESSAGE_LIMIT, splitMrkdwn } from "./split-mrkdwn.js";

export interface SlackFollowerOptions {
  streaming: boolean;
  maxFileBytes: number;
  /** least time between two edits of the streamed answer */
  updateIntervalMs: number;
  /** longest Retry-After the final posting waits out itself; a longer one is left to the job's retry */
  maxRetryWaitSeconds: number;
  messageLimit?: number;
}

const ERROR_TEXT = "Sorry, there was an error processing your message.";

/**
 * Answers one Slack run in its thread. Streaming, the first text posts a message that is then
 * edited with the text so far, at most once per `updateIntervalMs` and never before a 429's
 * Retry-After; text past the message limit continues in new messages. The end writes the full
 * answer, or the buttons of a paused run. A failed final post throws, so the job posts again
 * without running the component again.
 */
export function slackFollower(api: SlackApi, target: SlackTarget, opts: SlackFollowerOptions): RunFollower {
  const place: SlackPlace = { channel: target.channel, threadTs: target.thread_ts };
  const limit = opts.messageLimit ?? SLACK_MESSAGE_LIMIT;
  const posted: string[] = [];
  const sent: string[] = [];
  let streamed = "";
  let started = false;
  // Whether the run did more than pause again: a press that answers one of several waiting tool
  // calls leaves the run paused on the others, whose buttons are already in the thread.
  let resumed = false;
  let lastFlush = 0;
  let notBefore = 0;
  let inflight: Promise<void> | undefined;

  /** Makes the thread's messages show `mrkdwn`: posts the ones missing, edits the ones that changed. */
  const show = async (mrkdwn: string) => {
    const chunks = splitMrkdwn(mrkdwn, limit);
    for (const [i, chunk] of chunks.entries()) {
      if (posted[i] === undefined) posted[i] = await api.postMessage(place, chunk);
      else if (sent[i] !== chunk) await api.update(target.channel, posted[i]!, chunk);
      sent[i] = chunk;
    }
  };

  /** A final call: a short Retry-After is waited out here; anything else throws for the job to retry. */
  const finalCall = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      const wait = error instanceof SlackApiError ? error.retryAfterSeconds : undefined;
      const limited = error instanceof SlackApiError && error.httpStatus === 429;
      if (!limited || wait === undefined || wait > opts.maxRetryWaitSeconds) throw error;
      await sleep(wait * 1000);
      return call();
    }
  };

  const streamText = () => {
    const now = Date.now();
    if (inflight || now < notBefore || now - lastFlush < opts.updateIntervalMs) return;
    lastFlush = now;
    inflight = show(markdownToMrkdwn(streamed))
      .catch((error: unknown) => {
        if (error instanceof SlackApiError && error.retryAfterSeconds !== undefined)
          notBefore = Date.now() + error.retryAfterSeconds * 1000;
        else console.error(`slack: could not stream the answer: ${errorMessage(error)}`);
      })
      .finally(() => (inflight = undefined));
  };

  return {
    media: async () => fetchFiles(api, target, opts.maxFileBytes),
    onEvent: async (event: RunEvent) => {
      if (!started) {
        started = true;
        if (target.assistant) {
          // Both are cosmetic: a failure shows in the pane, never in the answer.
          await api.setAssistantStatus(target.channel, target.thread_ts, "is thinking…").catch(() => undefined);
          if (target.title)
            await api.setAssistantTitle(target.channel, target.thread_ts, target.title).catch(() => undefined);
        }
      }
      const e = event as { event: string; content?: unknown; parent_run_id?: string };
      if (!e.event.endsWith("RunPaused")) resumed = true;
      if (!opts.streaming) return;
      // A team's members stream too: only the run's own answer is shown.
      if (
        (e.event === "RunContent" || e.event === "TeamRunContent") &&
        !e.parent_run_id &&
        typeof e.content === "string"
      ) {
        streamed += e.content;
        if (streamed.trim()) streamText();
      }
    },
    onEnd: async (output: RunOutput) => {
      await inflight;
      // A streamed edit was rate-limited: the final write waits for the same Retry-After.
      const wait = notBefore - Date.now();
      if (wait > 0 && wait <= opts.maxRetryWaitSeconds * 1000) await sleep(wait);
      if (target.decided) {
        const d = target.decided;
        const text = `${d.confirmed ? "✅ Approved" : "❌ Rejected"} by ${mention(d.user)}${d.what ? `: ${d.what}` : ""}`;
        await finalCall(() =>
          api.update(target.channel, d.ts, text, [{ type: "section", text: { type: "mrkdwn", text } }]),
        );
      }
      const answer = contentText(output.content) || streamed;
      switch (output.status) {
        case "COMPLETED":
          if (answer.trim()) await finalCall(() => show(markdownToMrkdwn(answer)));
          return;
        case "PAUSED": {
          if (target.decided && !resumed) return;
          if (answer.trim()) await finalCall(() => show(markdownToMrkdwn(answer)));
          for (const req of (output.requirements ?? []).filter((r) => !r.resolved))
            await finalCall(() => postRequirement(api, place, output.run_id, req));
          return;
        }
        case "CANCELLED":
          await finalCall(() => api.postMessage(place, "The run was cancelled."));
          return;
        default:
          await finalCall(() => api.postMessage(place, `${ERROR_TEXT} Please try again later.`));
      }
    },
  };
}

/** One waiting requirement: buttons for a confirmation; the others cannot be answered in Slack. */
async function postRequirement(api: SlackApi, place: SlackPlace, runId: string, req: RunRequirement): Promise<void> {
  if (req.kind === "confirmation") {
    const blocks = approvalBlocks(runId, req);
    await api.postMessage(place, `Approval needed: ${req.tool_execution.tool_name}`, blocks);
    return;
  }
  const what = req.kind === "user_input" ? "input" : "the result of an external execution";
  await api.postMessage(
    place,
    `The run waits for ${what} for ${describeRequirement(req)}, which cannot be given in Slack: answer it through the AgentOS API (run ${runId}).`,
  );
}

/** The run's answer as text: a string as it is, structured output as a JSON code block. */
function contentText(content: unknown): string {
  if (content === undefined || content === null) return "";
  if (typeof content === "string") return content;
  return "```\n" + JSON.stringify(content, null, 2) + "\n```";
}

/** `<@U123>` for a Slack user id; anything else (it came signed from Slack, but still) as plain text. */
function mention(user: string): string {
  return /^[A-Z0-9]{1,64}$/i.test(user) ? `<@${user}>` : "someone";
}

function kindOf(mimeType: string): MediaKind | undefined {
  return (Object.keys(SUPPORTED_MIME_TYPES) as MediaKind[]).find((k) => SUPPORTED_MIME_TYPES[k].has(mimeType));
}

/**
 * The files the user shared, fetched with the bot token. A file of a type runs cannot take, or
 * larger than `maxBytes` (checked before and while reading), is left out rather than failing the run.
 */
async function fetchFiles(api: SlackApi, target: SlackTarget, maxBytes: number): Promise<MediaInput[]> {
  const out: MediaInput[] = [];
  for (const file of target.files ?? []) {
    const mimeType = file.mimetype.split(";")[0]!.trim().toLowerCase();
    const kind = kindOf(mimeType);
    if (!kind || (file.size !== undefined && file.size > maxBytes)) continue;
    const data = await api.download(file.url, maxBytes);
    if (!data) continue;
    out.push({ kind, data, mimeType, ...(kind === "file" && file.name ? { filename: file.name } : {}) });
  }
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
