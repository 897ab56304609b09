import type { Component } from "../agent/component.js";
import type { Db } from "../db/port.js";
import type { MediaStorage } from "../offload/media-storage.js";
import type { OSInterface } from "./os-interface.js";
import type { ReplyTarget } from "./reply-target.js";
import type { RunFollower } from "./run-follower.js";

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
export interface ChatInterface extends OSInterface {
  /** the agent, team or workflow whose runs it starts (its one entry in `components`) */
  readonly component: Component;
  /** how a run it queued for `target` is followed and answered (jobs find the interface by its prefix) */
  follow(target: ReplyTarget, deps: InterfaceJobDeps): RunFollower;
}

/** Whether `iface` answers queued runs on a chat platform (rather than serving a protocol in the request). */
export function isChatInterface(iface: OSInterface): iface is ChatInterface {
  return typeof (iface as Partial<ChatInterface>).follow === "function";
}
