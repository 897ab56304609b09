import type { Context } from "hono";
import { z } from "zod";
import type { RunRequirement } from "../../agent/run-output.js";
import type { Db } from "../../db/port.js";
import { BadRequestError, NotFoundError, ValidationError } from "../../errors.js";
import type { OSEnv } from "../../os/context.js";
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
import { enqueueInterfaceContinue } from "../enqueue-interface-continue.js";
import { enqueueInterfaceRun } from "../enqueue-interface-run.js";
import type { Slack } from "./slack.js";
import type { SlackApi } from "./slack-api.js";
import { WebhookTooLargeError } from "../webhook-errors.js";
import { ACTION_APPROVE, ACTION_REJECT, decodeButtonValue, describeRequirement } from "./slack-hitl-blocks.js";
import { slackMessageOf } from "./slack-message.js";
import { slackBlockActionsSchema, slackEnvelopeSchema } from "./slack-payloads.js";
import type { SlackTarget } from "./slack-target.js";
import { verifySlackSignature } from "./verify-slack-signature.js";

export interface SlackRouteOptions {
  api: SlackApi;
  apiOrigin: string;
  signingSecret: string;
  replyToMentionsOnly: boolean;
  admins: readonly string[];
  maxBodyBytes: number;
}

const ack = z.object({ ok: z.boolean() });
const SLACK_PROOF =
  "X-Slack-Signature and X-Slack-Request-Timestamp: HMAC-SHA256 of v0:{timestamp}:{body} with the app's signing secret, within five minutes";
/** What both routes refuse, each with agno's error body. */
const refusals = {
  400: jsonAnswer(errorSchema, "The body is not what Slack sends (not JSON, no payload)"),
  401: jsonAnswer(errorSchema, "Missing, stale or wrong signature"),
  413: jsonAnswer(errorSchema, "Body larger than any Slack sends"),
  422: jsonAnswer(errorSchema, "Not a request this interface reads; `detail` names the field"),
};

/**
 * Slack's two request URLs: `POST {prefix}/events` (the Events API) and `POST
 * {prefix}/interactions` (button presses). Both are public and check Slack's signature over the
 * raw body before reading anything in it; a message is queued and answered 200 at once, the run
 * and the answer happen in the job.
 */
export function slackRoutes(iface: Slack, deps: InterfaceRouteDeps, opts: SlackRouteOptions) {
  const app = routeApp();
  const events = defineRoute({
    method: "post",
    path: `${iface.prefix}/events`,
    tags: ["Slack"],
    summary: "Slack Events API request URL",
    description:
      "Signed by Slack (X-Slack-Signature). Answers the URL check with its challenge; queues a run for each message the bot should answer (a redelivery queues nothing new).",
    scope: null,
    authenticatedBy: SLACK_PROOF,
    responses: {
      200: jsonAnswer(z.union([z.object({ challenge: z.string() }), ack]), "Accepted"),
      ...refusals,
    },
  });
  const interactions = defineRoute({
    method: "post",
    path: `${iface.prefix}/interactions`,
    tags: ["Slack"],
    summary: "Slack interactivity request URL",
    description:
      "Signed by Slack. An Approve or Reject press on a paused run queues its continue, if the presser started the run or is an admin.",
    scope: null,
    authenticatedBy: SLACK_PROOF,
    responses: { 200: jsonAnswer(ack, "Accepted"), ...refusals },
  });

  /** The raw body, once its size and Slack's signature over it are checked. */
  const signedBody = async (c: Context<OSEnv>): Promise<string> => {
    const declared = Number(c.req.header("content-length") ?? "0");
    if (declared > opts.maxBodyBytes)
      throw new WebhookTooLargeError(`request body is larger than ${opts.maxBodyBytes} bytes`);
    const raw = new Uint8Array(await c.req.raw.clone().arrayBuffer());
    if (raw.byteLength > opts.maxBodyBytes)
      throw new WebhookTooLargeError(`request body is larger than ${opts.maxBodyBytes} bytes`);
    await verifySlackSignature(
      opts.signingSecret,
      { timestamp: c.req.header("x-slack-request-timestamp"), signature: c.req.header("x-slack-signature") },
      raw,
    );
    try {
      return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(raw);
    } catch {
      throw new BadRequestError("request body is not UTF-8");
    }
  };

  handle(app, events, async (c) => {
    const body = parseJson(await signedBody(c), "request body");
    const parsed = slackEnvelopeSchema.safeParse(body);
    if (!parsed.success) throw validationError(parsed.error, "body");
    const problem = inputProblem(parsed.data, "body");
    if (problem) throw problem;
    const envelope = parsed.data;
    if (envelope.type === "url_verification") return c.json({ challenge: envelope.challenge });
    if (envelope.type === "app_rate_limited") return c.json({ ok: true });
    const message = slackMessageOf(envelope, {
      prefix: iface.prefix,
      replyToMentionsOnly: opts.replyToMentionsOnly,
      apiOrigin: opts.apiOrigin,
    });
    if (message)
      await enqueueInterfaceRun(c.env, deps.queue, iface, {
        ...message,
        traceparent: jobTraceparent(c, iface.component.ref),
      });
    return c.json({ ok: true });
  });

  handle(app, interactions, async (c) => {
    const form = new URLSearchParams(await signedBody(c));
    const raw = form.get("payload");
    if (!raw) throw new BadRequestError("the form has no payload field");
    const payload = parseJson(raw, "payload");
    if (typeof payload !== "object" || payload === null || Array.isArray(payload))
      throw new ValidationError("payload: must be a JSON object", "payload");
    // Shortcuts, modals and other interactions are another app's business on a shared URL.
    if ((payload as { type?: unknown }).type !== "block_actions") return c.json({ ok: true });
    const parsed = slackBlockActionsSchema.safeParse(payload);
    if (!parsed.success) throw validationError(parsed.error, "payload");
    const press = parsed.data;
    const action = press.actions[0]!;
    if (action.action_id !== ACTION_APPROVE && action.action_id !== ACTION_REJECT) return c.json({ ok: true });
    const answer = decodeButtonValue(action.value ?? "");
    if (!answer)
      throw new ValidationError("payload actions.0.value: is not a button this interface posted", "actions.0.value");
    const channel = press.channel?.id;
    const buttonTs = press.container?.message_ts ?? press.message?.ts;
    if (!channel || !buttonTs) throw new ValidationError("payload channel.id: is required", "channel.id");
    const actionKey = action.action_ts ?? press.trigger_id;
    if (!actionKey) throw new ValidationError("payload actions.0.action_ts: is required", "actions.0.action_ts");
    const threadTs = press.message?.thread_ts ?? press.container?.thread_ts ?? buttonTs;
    const confirmed = action.action_id === ACTION_APPROVE;
    const reply: SlackTarget = {
      interface: iface.prefix,
      channel,
      thread_ts: threadTs,
      decided: { ts: buttonTs, requirement_id: answer.requirementId, confirmed, user: press.user.id },
    };
    const isAdmin = opts.admins.includes(press.user.id);
    const tell = (text: string) =>
      opts.api.postEphemeral({ channel, threadTs }, press.user.id, text).catch(() => undefined);
    const pressed = await requirementOf(c.env.dbs[0], answer.runId, answer.requirementId);
    // A tool that needs an admin's approval: the job would refuse anyone else's press, silently.
    if (!isAdmin && pressed?.requires_admin && !pressed.resolved) {
      await tell("Only an admin can answer this request.");
      return c.json({ ok: true });
    }
    // What was decided is shown by name: a run that goes on to complete no longer lists it.
    if (pressed) reply.decided!.what = describeRequirement(pressed);
    try {
      await enqueueInterfaceContinue(c.env, deps.queue, iface, {
        runId: answer.runId,
        userId: press.user.id,
        resolutions: [{ id: answer.requirementId, confirmed }],
        actionKey: `${channel}:${buttonTs}:${actionKey}`,
        isAdmin,
        reply,
        traceparent: jobTraceparent(c, iface.component.ref),
      });
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      // Not this user's run: Slack is answered 200 (a 4xx shows the presser a generic failure), and they are told why.
      await tell("Only the person who asked, or an admin, can answer this request.");
    }
    return c.json({ ok: true });
  });
  return app;
}

/** The requirement a press answers, as the run stores it (undefined for an unknown run: the core refuses it then). */
async function requirementOf(
  db: Db | undefined,
  runId: string,
  requirementId: string,
): Promise<RunRequirement | undefined> {
  const row = db ? await db.getRun(runId) : null;
  const reqs = (row?.run_data as { requirements?: RunRequirement[] } | undefined)?.requirements ?? [];
  return reqs.find((r) => r.id === requirementId);
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new BadRequestError(`${what} is not valid JSON`);
  }
}
