import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { conformingCall } from "../check.js";
import { modelEnv } from "../../worker-client.js";

const hex = (bytes: ArrayBuffer) => [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
async function hmacHex(secret: string, text: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return hex(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(text)));
}

/** A request as Slack signs it: v0 HMAC over `v0:{timestamp}:{body}` with the app's signing secret. */
async function slackSigned(body: string, contentType: string): Promise<RequestInit> {
  const ts = String(Math.floor(Date.now() / 1000));
  return {
    method: "POST",
    body,
    headers: {
      "content-type": contentType,
      "x-slack-request-timestamp": ts,
      "x-slack-signature": `v0=${await hmacHex(env.SLACK_SIGNING_SECRET, `v0:${ts}:${body}`)}`,
    },
  };
}

/**
 * The chat interfaces' routes (on in the suite's env: vitest.config.ts), each answered with a
 * success that starts no run: Slack's URL check and an interaction it does not act on, a Telegram
 * update kind the bot ignores and its status probe, WhatsApp's verification and a delivery of
 * read receipts. Webhooks carry no credentials of the AgentOS: the platform's proof is all they take.
 */
export function interfacesScenarios(): void {
  it("Slack: the Events API's URL check and an interaction it does not act on", async () => {
    const check = await conformingCall(
      "/slack/events",
      await slackSigned(JSON.stringify({ type: "url_verification", challenge: "c-123" }), "application/json"),
      {},
      {},
    );
    expect(check).toMatchObject({ status: 200, body: { challenge: "c-123" } });
    const payload = JSON.stringify({ type: "view_closed", user: { id: "U1" }, team: { id: "T1" } });
    const pressed = await conformingCall(
      "/slack/interactions",
      await slackSigned(`payload=${encodeURIComponent(payload)}`, "application/x-www-form-urlencoded"),
      {},
      {},
    );
    expect(pressed).toMatchObject({ status: 200, body: { ok: true } });
  });

  it("Telegram: an update kind the bot does not read, and the status probe", async () => {
    const ignored = await conformingCall(
      "/telegram/webhook",
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-telegram-bot-api-secret-token": env.TELEGRAM_WEBHOOK_SECRET,
        },
        body: JSON.stringify({ update_id: 1, poll: { id: "p", question: "?", options: [] } }),
      },
      {},
      {},
    );
    expect(ignored).toMatchObject({ status: 200, body: { status: "ignored" } });
    expect(await conformingCall("/telegram/status", {}, {}, {})).toMatchObject({
      status: 200,
      body: { status: "available" },
    });
  });

  it("WhatsApp: Meta's webhook verification and a delivery of read receipts", async () => {
    const verified = await conformingCall(
      `/whatsapp/webhook?hub.mode=subscribe&hub.verify_token=${env.WHATSAPP_VERIFY_TOKEN}&hub.challenge=1158201444`,
      {},
      {},
      {},
    );
    expect(verified).toMatchObject({ status: 200, text: "1158201444" });
    const body = JSON.stringify({
      object: "whatsapp_business_account",
      entry: [
        {
          id: "WABA",
          changes: [
            {
              field: "messages",
              value: {
                messaging_product: "whatsapp",
                metadata: { display_phone_number: "15550000000", phone_number_id: env.WHATSAPP_PHONE_NUMBER_ID },
                statuses: [{ id: "wamid.X", status: "read", timestamp: "1700000000", recipient_id: "15551234567" }],
              },
            },
          ],
        },
      ],
    });
    const receipts = await conformingCall(
      "/whatsapp/webhook",
      {
        method: "POST",
        body,
        headers: {
          "content-type": "application/json",
          "x-hub-signature-256": `sha256=${await hmacHex(env.WHATSAPP_APP_SECRET, body)}`,
        },
      },
      {},
      {},
    );
    expect(receipts).toMatchObject({ status: 200, body: { status: "ignored", queued: 0 } });
  });

  it("AG-UI: a run streamed as AG-UI events, and the status probe", async () => {
    const { env: e } = await modelEnv([{ text: "Hello from AG-UI." }]);
    const threadId = `agui-conformance-${crypto.randomUUID()}`;
    const run = await conformingCall(
      "/agui",
      {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          threadId,
          runId: crypto.randomUUID(),
          messages: [{ id: "m1", role: "user", content: "Say hello" }],
          tools: [],
          context: [],
        }),
      },
      e,
    );
    expect(run.status).toBe(200);
    expect(run.headers.get("content-type")).toMatch(/text\/event-stream/);
    const types = run.text
      .split("\n\n")
      .filter((f) => f.startsWith("data: "))
      .map((f) => (JSON.parse(f.slice(6)) as { type: string }).type);
    expect(types[0]).toBe("RUN_STARTED");
    expect(types).toContain("TEXT_MESSAGE_CONTENT");
    expect(types.at(-1)).toBe("RUN_FINISHED");
    expect(await conformingCall("/status", {}, {}, {})).toMatchObject({ status: 200, body: { status: "available" } });
  });
}
