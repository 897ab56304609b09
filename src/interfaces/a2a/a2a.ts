import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Component } from "../../agent/component.js";
import { ValidationError } from "../../errors.js";
import type { OSEnv } from "../../os/context.js";
import type { InterfaceRouteDeps, OSInterface } from "../os-interface.js";
import { a2aRoutes } from "./a2a-routes.js";

export interface A2AOptions {
  agents?: Component[];
  teams?: Component[];
  workflows?: Component[];
  /** where the routes are mounted (default `/a2a`) */
  prefix?: string;
}

/**
 * agno's A2A interface: the agents, teams and workflows given speak the Agent2Agent protocol
 * (0.3, JSON-RPC) under `prefix`, each with its agent card at
 * `{prefix}/{agents|teams|workflows}/{id}/.well-known/agent-card.json`. A task is a run (taskId
 * is the run id, contextId the session id); a paused run is `input-required` and a follow-up
 * message with its taskId continues it. Each must also be served by the AgentOS.
 *
 * @example
 * const os = new AgentOS({ agents: [agent], interfaces: [new A2A({ agents: [agent] })] });
 */
export class A2A implements OSInterface {
  readonly type = "a2a";
  readonly version = "1.0";
  readonly prefix: string;
  readonly components: readonly Component[];

  constructor(opts: A2AOptions) {
    this.prefix = opts.prefix ?? "/a2a";
    const given = [...(opts.agents ?? []), ...(opts.teams ?? []), ...(opts.workflows ?? [])];
    if (given.length === 0) throw new ValidationError("A2A needs at least one of agents, teams or workflows", "agents");
    const misplaced = [
      ...(opts.agents ?? []).filter((c) => c.ref.type !== "agent"),
      ...(opts.teams ?? []).filter((c) => c.ref.type !== "team"),
      ...(opts.workflows ?? []).filter((c) => c.ref.type !== "workflow"),
    ];
    if (misplaced.length > 0)
      throw new ValidationError(
        `A2A: ${misplaced[0]!.ref.type} ${misplaced[0]!.ref.id} is listed among the wrong kind`,
        "agents",
      );
    this.components = given;
  }

  routes(deps: InterfaceRouteDeps): OpenAPIHono<OSEnv> {
    return a2aRoutes(this.prefix, this.components, deps);
  }
}
