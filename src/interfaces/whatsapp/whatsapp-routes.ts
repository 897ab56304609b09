import { z } from "zod";
import { BadRequestError, ForbiddenError, NotFoundError, ValidationError } from "../../errors.js";
import { defineRoute, errorSchema, handle, jsonAnswer, routeApp, validationError } from "../../os/route.js";
import { jobTraceparent } from "../../os/request-trace.js";
import type { InterfaceRouteDeps } from "../os-interface.js";
import { enqueueInterfaceContinue } from "../enqueue-interface-continue.js";
import { enqueueInterfaceRun } from "../enqueue-interface-run.js";
import { interfaceSessionId } from "../interface-session-id.js";
import type { WhatsApp } from "./whatsapp.js";
import { parseButtonId, type ButtonPress } from "./whatsapp-buttons.js";
import { WebhookAuthError, WebhookTooLargeError } from "../webhook-errors.js";
import type { PendingMedia, WhatsAppReply } from "./whatsapp-follower.js";
import { deliveredMessages, webhookPayload, type WhatsAppMessage } from "./whatsapp-payload.js";
import { constantTimeEqual, verifyMetaSignature } from "./whatsapp-signature.js";

/** What a message asks for: a run of its text (with its files), the answer to a paused run, or nothing this interface reads. */
type Intent =
  { kind: "run"; text: string; media: PendingMedia[] } | { kind: "press"; press: ButtonPress } | { kind: "ignore" };

const MEDIA_KIND = { image: "image", audio: "audio", video: "video", document: "file" } as const;

function intentOf(m: WhatsAppMessage): Intent {
  switch (m.type) {
    case "text":
      return { kind: "run", text: m.text!.body, media: [] };
    case "image":
    case "audio":
    case "video":
    case "document": {
      const file = m[m.type]!;
      const media: PendingMedia = {
        id: file.id,
        kind: MEDIA_KIND[m.type],
        ...(file.mime_type ? { mime_type: file.mime_type } : {}),
        ...(file.filename ? { filename: file.filename } : {}),
      };
      // agno runs a captionless file with an empty message; a model needs some words to go on.
      const text = file.caption?.trim() || `(the user sent ${m.type === "image" ? "an image" : `a ${m.type}`})`;
      return { kind: "run", text, media: [media] };
    }
    case "interactive": {
      const i = m.interactive!;
      if (i.type === "button_reply") {
        const press = parseButtonId(i.button_reply!.id);
        return press ? { kind: "press", press } : { kind: "run", text: i.button_reply!.title, media: [] };
      }
      if (i.type === "list_reply") {
        const r = i.list_reply!;
        return { kind: "run", text: r.description ? `${r.title}: ${r.description}` : r.title, media: [] };
      }
      return { kind: "ignore" };
    }
    default:
      // Stickers, locations, reactions, contacts, "unsupported": nothing a run is started for.
      return { kind: "ignore" };
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

export function whatsappRoutes(wa: WhatsApp, deps: InterfaceRouteDeps) {
  const app = routeApp();
  const verify = defineRoute({
    method: "get",
    path: `${wa.prefix}/webhook`,
    tags: ["WhatsApp"],
    summary: "Meta's webhook verification: echoes hub.challenge when hub.verify_token is the configured one",
    scope: null,
    authenticatedBy: "hub.verify_token: the verify token set in the Meta app",
    request: {
      query: z.object({
        "hub.mode": z.string().max(64).optional(),
        "hub.verify_token": z.string().max(512).optional(),
        "hub.challenge": z.string().max(256).optional(),
      }),
    },
    responses: {
      200: { description: "The challenge, as text/plain", content: { "text/plain": { schema: z.string() } } },
      400: jsonAnswer(errorSchema, "No usable hub.challenge"),
      403: jsonAnswer(errorSchema, "Wrong hub.verify_token or hub.mode"),
    },
  });
  const webhook = defineRoute({
    method: "post",
    path: `${wa.prefix}/webhook`,
    tags: ["WhatsApp"],
    summary: "A WhatsApp Cloud API delivery, signed with X-Hub-Signature-256: each message becomes a background run",
    scope: null,
    authenticatedBy: "X-Hub-Signature-256: HMAC-SHA256 of the body with the Meta app secret",
    responses: {
      200: jsonAnswer(
        z.object({
          status: z.enum(["processing", "ignored"]),
          queued: z.number(),
          duplicates: z.number(),
          refused: z.number(),
        }),
        "Accepted: the messages' runs are queued (a redelivery queues nothing again)",
      ),
      400: jsonAnswer(errorSchema, "The body is not JSON"),
      401: jsonAnswer(errorSchema, "X-Hub-Signature-256 is missing or does not match the body"),
      413: jsonAnswer(errorSchema, "Body larger than the interface reads"),
      422: jsonAnswer(errorSchema, "Not a WhatsApp delivery this interface can read; `detail` names the field"),
    },
  });

  handle(app, verify, (c) => {
    const q = c.req.valid("query");
    if (q["hub.mode"] !== "subscribe" || !constantTimeEqual(q["hub.verify_token"] ?? "", wa.verifyToken))
      throw new ForbiddenError("hub.mode must be subscribe and hub.verify_token the configured verify token");
    const challenge = q["hub.challenge"];
    if (!challenge || !/^[\x21-\x7e]+$/.test(challenge))
      throw new BadRequestError("hub.challenge is missing or not printable text");
    c.header("x-content-type-options", "nosniff");
    return c.text(challenge, 200);
  });

  handle(app, webhook, async (c) => {
    const declared = Number(c.req.header("content-length") ?? 0);
    if (declared > wa.maxBodyBytes) throw new WebhookTooLargeError(`the body is larger than ${wa.maxBodyBytes} bytes`);
    const raw = await c.req.arrayBuffer();
    if (raw.byteLength > wa.maxBodyBytes)
      throw new WebhookTooLargeError(`the body is larger than ${wa.maxBodyBytes} bytes`);
    // The signature is over the exact bytes: nothing is parsed before it holds.
    if (!(await verifyMetaSignature(wa.appSecret, raw, c.req.header("x-hub-signature-256"))))
      throw new WebhookAuthError("X-Hub-Signature-256 is missing or does not match the body");
    let json: unknown;
    try {
      json = JSON.parse(utf8.decode(raw));
    } catch {
      throw new BadRequestError("the body is not JSON");
    }
    const parsed = webhookPayload.safeParse(json);
    if (!parsed.success) throw validationError(parsed.error, "body");
    if (parsed.data.object !== "whatsapp_business_account")
      throw new ValidationError('body object: must be "whatsapp_business_account"', "object");

    // Everything is read and checked before anything is queued: a bad delivery queues nothing.
    const now = Math.floor(Date.now() / 1000);
    const work = deliveredMessages(parsed.data)
      .filter((d) => d.phoneNumberId === undefined || d.phoneNumberId === wa.phoneNumberId)
      .filter((d) => now - Number(d.message.timestamp) <= wa.maxMessageAgeSeconds)
      .map((d) => ({ message: d.message, intent: intentOf(d.message) }))
      .filter((w) => w.intent.kind !== "ignore");

    let queued = 0;
    let duplicates = 0;
    let refused = 0;
    for (const { message: m, intent } of work) {
      const reply: WhatsAppReply = { interface: wa.prefix, to: m.from, message_id: m.id };
      if (intent.kind === "run") {
        const { created } = await enqueueInterfaceRun(c.env, deps.queue, wa, {
          message: intent.text,
          sessionId: interfaceSessionId(wa.type, m.from, m.from),
          userId: m.from,
          eventKey: m.id,
          reply: intent.media.length ? { ...reply, media: intent.media } : reply,
          traceparent: jobTraceparent(c, wa.component.ref),
        });
        if (created) queued++;
        else duplicates++;
      } else if (intent.kind === "press") {
        const { press } = intent;
        try {
          const { created } = await enqueueInterfaceContinue(c.env, deps.queue, wa, {
            runId: press.runId,
            userId: m.from,
            resolutions: [
              press.kind === "step"
                ? { step_id: press.id, confirmed: press.confirmed }
                : { id: press.id, confirmed: press.confirmed },
            ],
            actionKey: m.id,
            isAdmin: wa.admins.includes(m.from),
            reply,
            traceparent: jobTraceparent(c, wa.component.ref),
          });
          if (created) queued++;
          else duplicates++;
        } catch (error) {
          // Another user's run (or none): nothing is continued. Meta would redeliver a refusal
          // for days, to the same end, so the delivery itself is accepted.
          if (!(error instanceof NotFoundError)) throw error;
          refused++;
        }
      }
    }
    return c.json({ status: queued + duplicates > 0 ? "processing" : "ignored", queued, duplicates, refused }, 200);
  });
  return app;
}
