import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Component } from "../agent/component.js";
import type { Db } from "../db/port.js";
import type { MediaStorage } from "../offload/media-storage.js";
import type { QueueConfig } from "../os/background.js";
import type { OSEnv } from "../os/context.js";
import type { ReplyTarget } from "./reply-target.js";
import type { RunFollower } from "./run-follower.js";

/** What an interface's routes are given by the AgentOS that mounts them. */
export interface InterfaceRouteDeps {
  /** the durable queue's settings: a webhook enqueues its run there (503 without the queue) */
  queue: QueueConfig | undefined;
  /** where files the user sends are kept as run media */
  media?: MediaStorage;
}

/** What the job that runs an interface's message gives the interface to answer with. */
export interface InterfaceJobDeps {
  db: Db;
  media?: MediaStorage;
}

/**
 * A chat platform in front of a component (agno's `BaseInterface`): Slack, Telegram, WhatsApp.
 * Its webhook routes are public (`scope: null`) because it authenticates its own requests by
 * signature or secret token; a message becomes a background run of `component` on the durable
 * queue, and the job that runs it calls `follow` to answer on the platform.
 */
export interface ChatInterface {
  /** agno's interface type: "slack", "telegram", "whatsapp" */
  readonly type: string;
  readonly version: string;
  /** where its routes are mounted, e.g. "/slack"; unique per AgentOS, and how jobs find it again */
  readonly prefix: string;
  /** the agent, team or workflow whose runs it starts; the AgentOS must serve it */
  readonly component: Component;
  /** its routes, paths starting with `prefix` */
  routes(deps: InterfaceRouteDeps): OpenAPIHono<OSEnv>;
  /** how a run it queued for `target` is followed and answered */
  follow(target: ReplyTarget, deps: InterfaceJobDeps): RunFollower;
}
