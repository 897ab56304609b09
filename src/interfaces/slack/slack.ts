import type { Component } from "../../agent/component.js";
import { ValidationError } from "../../errors.js";
import type { ChatInterface, InterfaceJobDeps } from "../chat-interface.js";
import type { InterfaceRouteDeps } from "../os-interface.js";
import type { ReplyTarget } from "../reply-target.js";
import type { RunFollower } from "../run-follower.js";
import { SlackApi } from "./slack-api.js";
import { slackFollower } from "./slack-follower.js";
import { slackRoutes } from "./slack-routes.js";
import { slackTargetOf } from "./slack-target.js";
import { oneComponent } from "../one-component.js";

/** agno's Slack options, as agno names them (camelCase), for the parts this interface has. */
export interface SlackOptions {
  /** exactly one of agent, team and workflow: what the bot's messages run */
  agent?: Component;
  team?: Component;
  workflow?: Component;
  /** the bot token (`xoxb-…`, SLACK_BOT_TOKEN) */
  token: string;
  /** the app's signing secret (SLACK_SIGNING_SECRET): every request is checked against it */
  signingSecret: string;
  /** the Web API's base URL (SLACK_API_URL; default https://slack.com/api) */
  apiUrl?: string;
  /** where the routes are mounted (default `/slack`) */
  prefix?: string;
  /** answer channel messages only when they mention the bot (default true); DMs are always answered */
  replyToMentionsOnly?: boolean;
  /** Slack user ids who may approve or reject any run's paused tool calls, admin-only ones too */
  admins?: string[];
  /** largest file a user shares that is given to the run, in bytes (default 20 MiB); larger ones are left out */
  maxFileBytes?: number;
  /** show the answer as it is written, editing the message (default true) */
  streaming?: boolean;
  /** least time between two edits of a streamed answer (default 1000 ms, Slack's rate for chat.update) */
  updateIntervalMs?: number;
  /** largest request Slack may send (default 512 KiB) */
  maxBodyBytes?: number;
}

/**
 * agno's Slack interface: a Slack app's bot in front of an agent, team or workflow. Mentions
 * (and DMs) become background runs on the durable queue, answered in the message's thread;
 * a paused run's tool calls get Approve and Reject buttons.
 *
 * @example
 * new AgentOS({ agents: [agent], interfaces: [new Slack({ agent, token: env.SLACK_BOT_TOKEN, signingSecret: env.SLACK_SIGNING_SECRET })], queue: { durable: true } })
 */
export class Slack implements ChatInterface {
  readonly type = "slack";
  readonly version = "1.0";
  readonly prefix: string;
  readonly component: Component;
  get components(): readonly Component[] {
    return [this.component];
  }
  private readonly api: SlackApi;
  private readonly apiOrigin: string;

  constructor(private readonly opts: SlackOptions) {
    this.component = oneComponent("Slack", opts);
    if (!opts.token) throw new ValidationError("Slack needs the bot token (SLACK_BOT_TOKEN)", "token");
    if (!opts.signingSecret)
      throw new ValidationError("Slack needs the app's signing secret (SLACK_SIGNING_SECRET)", "signingSecret");
    const apiUrl = opts.apiUrl ?? "https://slack.com/api";
    try {
      this.apiOrigin = new URL(apiUrl).origin;
    } catch {
      throw new ValidationError("Slack apiUrl must be a URL", "apiUrl");
    }
    this.prefix = opts.prefix ?? "/slack";
    this.api = new SlackApi(opts.token, apiUrl);
  }

  routes(deps: InterfaceRouteDeps) {
    return slackRoutes(this, deps, {
      api: this.api,
      apiOrigin: this.apiOrigin,
      signingSecret: this.opts.signingSecret,
      replyToMentionsOnly: this.opts.replyToMentionsOnly ?? true,
      admins: this.opts.admins ?? [],
      maxBodyBytes: this.opts.maxBodyBytes ?? 512 * 1024,
    });
  }

  follow(target: ReplyTarget, _deps: InterfaceJobDeps): RunFollower {
    return slackFollower(this.api, slackTargetOf(target), {
      streaming: this.opts.streaming ?? true,
      maxFileBytes: this.opts.maxFileBytes ?? 20 * 1024 * 1024,
      updateIntervalMs: this.opts.updateIntervalMs ?? 1000,
      maxRetryWaitSeconds: 10,
    });
  }
}
