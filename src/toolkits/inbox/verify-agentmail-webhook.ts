import { base64ToBytes } from "../../base64.js";
import { ValidationError } from "../../errors.js";
import { WebhookAuthError, WebhookTooLargeError } from "../../interfaces/webhook-errors.js";
import { readCapped } from "../../read-capped.js";

/** An AgentMail webhook event (`message.received` carries the whole message and its thread). */
export interface AgentMailWebhookEvent {
  type?: string;
  /** e.g. `message.received`, `message.sent`, `message.delivered`, `message.bounced` */
  event_type?: string;
  /** the same on every retry of one event: a receiver can skip one it has handled */
  event_id?: string;
  message?: {
    inbox_id: string;
    thread_id: string;
    message_id: string;
    from: string;
    subject?: string;
    labels: string[];
    [field: string]: unknown;
  };
  [field: string]: unknown;
}

export interface VerifyAgentMailWebhookOptions {
  /** how far the signed timestamp may be from now, either way, in seconds (default 300, Svix's) */
  toleranceSeconds?: number;
  /** largest body read, in bytes (default 5 MiB: a received message's event holds its whole body) */
  maxBytes?: number;
  /** the current time, in Unix seconds (for tests) */
  nowSeconds?: number;
}

const encoder = new TextEncoder();

/**
 * Checks that a request is a webhook AgentMail sent (AgentMail delivers through Svix) and
 * returns its event. The signature is Svix's: `svix-signature` holds space-separated `v1,<base64>`
 * entries, each an HMAC-SHA256, keyed by the endpoint secret (`whsec_<base64>`), of
 * `{svix-id}.{svix-timestamp}.{raw body}`; one match is enough (two during a secret rotation),
 * and the timestamp must be within the tolerance of now. WebCrypto's verify compares in
 * constant time. A refusal is a WebhookAuthError (401) whose message quotes no secret; a body
 * over the cap is a WebhookTooLargeError (413); a signed body that is not JSON a ValidationError.
 *
 * @example
 * const event = await verifyAgentMailWebhook(env.AGENTMAIL_WEBHOOK_SECRET, request);
 * if (event.event_type === "message.received") ctx.waitUntil(agent.run(`New email ${event.message!.message_id}`));
 */
export async function verifyAgentMailWebhook(
  secret: string,
  request: Request,
  opts: VerifyAgentMailWebhookOptions = {},
): Promise<AgentMailWebhookEvent> {
  if (!secret) throw new TypeError("verifyAgentMailWebhook needs the endpoint's signing secret");
  const header = (name: string) => request.headers.get(`svix-${name}`) ?? request.headers.get(`webhook-${name}`);
  const id = header("id");
  const timestamp = header("timestamp");
  const signatures = header("signature");
  if (!id || !timestamp || !signatures) throw new WebhookAuthError("missing svix-id, svix-timestamp or svix-signature");
  if (!/^[0-9]{1,12}$/.test(timestamp)) throw new WebhookAuthError("svix-timestamp is not a Unix time");
  const now = opts.nowSeconds ?? Date.now() / 1000;
  const tolerance = opts.toleranceSeconds ?? 300;
  if (Math.abs(now - Number(timestamp)) > tolerance)
    throw new WebhookAuthError(`svix-timestamp is not within ${tolerance} seconds of now`);
  const maxBytes = opts.maxBytes ?? 5 * 1024 * 1024;
  const body = await readCapped(new Response(request.body), maxBytes);
  if (!body) throw new WebhookTooLargeError(`the webhook body is larger than ${maxBytes} bytes`);

  let keyBytes: Uint8Array<ArrayBuffer>;
  try {
    keyBytes = new Uint8Array(base64ToBytes(secret.replace(/^whsec_/, "")));
  } catch {
    throw new TypeError("the AgentMail signing secret is not whsec_ followed by base64");
  }
  const key = await crypto.subtle.importKey("raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
  const prefix = encoder.encode(`${id}.${timestamp}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix);
  signed.set(body, prefix.length);
  let ok = false;
  for (const entry of signatures.split(" ")) {
    const [version, sig] = entry.split(",", 2);
    if (version !== "v1" || !sig || !/^[A-Za-z0-9+/]{43}=$/.test(sig)) continue;
    if (await crypto.subtle.verify("HMAC", key, new Uint8Array(base64ToBytes(sig)), signed)) ok = true;
  }
  if (!ok) throw new WebhookAuthError("svix-signature does not match the request");

  let event: unknown;
  try {
    event = JSON.parse(new TextDecoder().decode(body));
  } catch {
    throw new ValidationError("the webhook body is not JSON");
  }
  if (!event || typeof event !== "object" || Array.isArray(event))
    throw new ValidationError("the webhook body is not a JSON object");
  return event as AgentMailWebhookEvent;
}
