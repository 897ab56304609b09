import type { Component } from "../../agent/component.js";
import { ValidationError } from "../../errors.js";
import type { InterfaceRouteDeps, OSInterface } from "../os-interface.js";
import { aguiRoutes } from "./agui-routes.js";

export interface AGUIOptions {
  /** exactly one of agent and team: what the frontend talks to */
  agent?: Component;
  team?: Component;
  /** where the routes are mounted (default "": `POST /agui`, `GET /status`, as agno's) */
  prefix?: string;
}

/**
 * agno's AGUI interface: an agent or a team behind the AG-UI protocol, for AG-UI frontends
 * (CopilotKit and others). Mount it with the AgentOS's `interfaces`.
 *
 * @example
 * defineAgentOS({ agents: [assistant], interfaces: [new AGUI({ agent: assistant })] });
 */
export class AGUI implements OSInterface {
  readonly type = "agui";
  readonly version = "1.0";
  readonly prefix: string;
  readonly component: Component;

  constructor(opts: AGUIOptions) {
    const given = [opts.agent, opts.team].filter((c) => c !== undefined);
    if (given.length !== 1) throw new ValidationError("AGUI needs exactly one of agent or team", "agent");
    this.component = given[0]!;
    if (this.component.ref.type === "workflow") throw new ValidationError("AGUI serves an agent or a team", "agent");
    this.prefix = opts.prefix ?? "";
  }

  get components(): readonly Component[] {
    return [this.component];
  }

  routes(deps: InterfaceRouteDeps) {
    return aguiRoutes(this, deps);
  }
}
