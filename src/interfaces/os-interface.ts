import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Component } from "../agent/component.js";
import type { MediaStorage } from "../offload/media-storage.js";
import type { QueueConfig } from "../os/background.js";
import type { OSEnv } from "../os/context.js";

/** What an interface's routes are given by the AgentOS that mounts them. */
export interface InterfaceRouteDeps {
  /** the durable queue's settings: a webhook enqueues its run there (503 without the queue) */
  queue: QueueConfig | undefined;
  /** where files the user sends are kept as run media */
  media?: MediaStorage;
  /**
   * the components as the AgentOS serves them (with its media and result storage attached):
   * an interface that runs a component in the request runs this instance, not the one it was given
   */
  served: readonly Component[];
}

/**
 * Anything mounted under `interfaces` (agno's `BaseInterface`): a chat platform's webhooks, or a
 * protocol such as AG-UI or A2A. It has its own routes under its prefix and is listed in
 * `/config`'s `interfaces`.
 */
export interface OSInterface {
  /** agno's interface type: "slack", "telegram", "whatsapp", "agui", "a2a" */
  readonly type: string;
  readonly version: string;
  /** where its routes are mounted, e.g. "/slack"; unique per AgentOS */
  readonly prefix: string;
  /** the agents, teams and workflows it serves; the AgentOS must serve each of them */
  readonly components: readonly Component[];
  /** its routes, paths starting with `prefix` */
  routes(deps: InterfaceRouteDeps): OpenAPIHono<OSEnv>;
}
