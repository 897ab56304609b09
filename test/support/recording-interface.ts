import { z } from "zod";
import type { Component } from "../../src/agent/component.js";
import type { RunEvent } from "../../src/agent/events.js";
import type { RunOutput } from "../../src/agent/run-output.js";
import type { ChatInterface, InterfaceJobDeps } from "../../src/interfaces/chat-interface.js";
import type { InterfaceRouteDeps } from "../../src/interfaces/os-interface.js";
import { enqueueInterfaceContinue } from "../../src/interfaces/enqueue-interface-continue.js";
import { enqueueInterfaceRun } from "../../src/interfaces/enqueue-interface-run.js";
import { interfaceSessionId } from "../../src/interfaces/interface-session-id.js";
import type { ReplyTarget } from "../../src/interfaces/reply-target.js";
import type { RunFollower } from "../../src/interfaces/run-follower.js";
import { defineRoute, handle, routeApp } from "../../src/os/route.js";

/** What the recording interface posted back: where, and the run's end as it saw it. */
export interface RecordedPost {
  chat: string;
  run_id: string;
  status: string;
  content: unknown;
  requirements: string[];
  events: number;
}

/**
 * The smallest chat interface: a webhook taking `{id, user, chat, text}` (no signature: what the
 * core does is under test, not a platform), a press route taking `{press_id, run_id, user,
 * confirmed}`, and a follower that records what it would post. `failPosts` makes that many posts
 * throw first, as a platform that is down would.
 */
export class RecordingInterface implements ChatInterface {
  readonly type = "recording";
  readonly version = "1.0";
  readonly posts: RecordedPost[] = [];
  failPosts = 0;
  /** thrown by `media()`, as a platform's file that cannot be fetched would be */
  mediaError: Error | undefined;

  get components(): readonly Component[] {
    return [this.component];
  }

  constructor(
    readonly component: Component,
    readonly prefix = "/rec",
    private readonly admins: string[] = [],
  ) {}

  routes(deps: InterfaceRouteDeps) {
    const app = routeApp();
    const message = z.object({ id: z.string(), user: z.string(), chat: z.string(), text: z.string() });
    const press = z.object({ press_id: z.string(), run_id: z.string(), user: z.string(), confirmed: z.boolean() });
    const webhook = defineRoute({
      method: "post",
      path: `${this.prefix}/webhook`,
      tags: ["Recording"],
      summary: "A message",
      scope: null,
      request: { body: { content: { "application/json": { schema: message } } } },
    });
    const pressRoute = defineRoute({
      method: "post",
      path: `${this.prefix}/press`,
      tags: ["Recording"],
      summary: "A button press",
      scope: null,
      request: { body: { content: { "application/json": { schema: press } } } },
    });
    handle(app, webhook, async (c) => {
      const m = c.req.valid("json");
      const { job, created } = await enqueueInterfaceRun(c.env, deps.queue, this, {
        message: m.text,
        sessionId: interfaceSessionId(this.type, m.chat, m.user),
        userId: m.user,
        eventKey: m.id,
        reply: { interface: this.prefix, chat: m.chat },
      });
      return c.json({ job_id: job.id, created });
    });
    handle(app, pressRoute, async (c) => {
      const p = c.req.valid("json");
      const { job, created } = await enqueueInterfaceContinue(c.env, deps.queue, this, {
        runId: p.run_id,
        userId: p.user,
        resolutions: [{ id: "c1", confirmed: p.confirmed }],
        actionKey: p.press_id,
        isAdmin: this.admins.includes(p.user),
        reply: { interface: this.prefix, chat: "pressed" },
      });
      return c.json({ job_id: job.id, created });
    });
    return app;
  }

  follow(target: ReplyTarget, _deps: InterfaceJobDeps): RunFollower {
    let events = 0;
    return {
      media: async () => {
        if (this.mediaError) throw this.mediaError;
        return [];
      },
      onEvent: (_e: RunEvent) => void events++,
      onEnd: async (output: RunOutput) => {
        if (this.failPosts > 0) {
          this.failPosts--;
          throw new Error("the platform is down");
        }
        this.posts.push({
          chat: String(target.chat),
          run_id: output.run_id,
          status: output.status,
          content: output.content,
          requirements: (output.requirements ?? []).filter((r) => !r.resolved).map((r) => r.id),
          events,
        });
      },
    };
  }
}
