import type { Component } from "../agent/component.js";
import { AGUI } from "../interfaces/agui/agui.js";
import type { OSInterface } from "../interfaces/os-interface.js";
import { Slack } from "../interfaces/slack/slack.js";
import { Telegram } from "../interfaces/telegram/telegram.js";
import { WhatsApp } from "../interfaces/whatsapp/whatsapp.js";
import type { WorkerConfig } from "../worker/env-config.js";

/**
 * The example app's interfaces, in front of `agent`: AG-UI (`POST /agui`, behind the app's auth)
 * always, and each chat platform whose secrets are set. The settings were validated with the rest
 * of the env (all of a platform's secrets, or none).
 */
export function exampleInterfaces(agent: Component, config: WorkerConfig): OSInterface[] {
  const out: OSInterface[] = [new AGUI({ agent })];
  if (config.slack)
    out.push(
      new Slack({
        agent,
        token: config.slack.botToken,
        signingSecret: config.slack.signingSecret,
        apiUrl: config.slack.apiUrl,
      }),
    );
  if (config.telegram) out.push(new Telegram({ agent, ...config.telegram }));
  if (config.whatsapp) out.push(new WhatsApp({ agent, ...config.whatsapp }));
  return out;
}
