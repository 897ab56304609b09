import type { z } from "zod";
import { Knowledge } from "../../../src/knowledge/knowledge.js";
import { InMemoryVectorDb } from "../../../src/knowledge/vectordb/in-memory-vector-db.js";
import { AgentOS } from "../../../src/os/agent-os.js";
import { Agent } from "../../../src/agent/agent.js";
import { UnconfiguredModel } from "../../../src/models/unconfigured-model.js";
import { AGUI } from "../../../src/interfaces/agui/agui.js";
import { Slack } from "../../../src/interfaces/slack/slack.js";
import { Telegram } from "../../../src/interfaces/telegram/telegram.js";
import { WhatsApp } from "../../../src/interfaces/whatsapp/whatsapp.js";
import { A2A } from "../../../src/interfaces/a2a/a2a.js";
import { mcpServer } from "../../../src/mcp/mcp-server.js";
import { Team } from "../../../src/team/team.js";
import { Step } from "../../../src/workflow/step.js";
import { Workflow } from "../../../src/workflow/workflow.js";
import { XAITokenManager } from "../../../src/models/xai/xai-token-manager.js";
import { xaiLoginRoutes } from "../../../src/os/routes/xai-login.js";

/** One served route as its definition declares it: the zod schema of each answer, by status. */
export interface Contract {
  method: string;
  /** OpenAPI style, `{param}` */
  path: string;
  pattern: RegExp;
  /** literal segments count: a concrete path matches the most literal contract first */
  literals: number;
  /** declared public (`scope: null`): it authenticates itself, if at all */
  isPublic: boolean;
  responses: Map<number, { schema?: z.ZodType; contentTypes: string[] }>;
}

interface RouteDefinition {
  method: string;
  path: string;
  security?: unknown[];
  responses: Record<string, { content?: Record<string, { schema?: z.ZodType }> }>;
}

/**
 * Read from the route definitions themselves (the registry `/openapi.json` is generated from), so
 * what is checked here is what the document says: the same zod schemas.
 */
function readContracts(): Contract[] {
  // With a knowledge base and the chat interfaces, so the routes served only where there are
  // some (/knowledge, /slack, /telegram, /whatsapp, /a2a, /models/xai/login) are declared too.
  const agent = new Agent({ id: "assistant", model: new UnconfiguredModel() });
  const team = new Team({ id: "writing-desk", model: new UnconfiguredModel(), members: [agent] });
  const workflow = new Workflow({
    id: "blog-post",
    name: "Blog post",
    steps: [new Step({ name: "s", executor: () => "x" })],
  });
  const os = new AgentOS({
    agents: [agent],
    mcpServer: mcpServer(),
    xaiLogin: xaiLoginRoutes(new XAITokenManager({ encryptTokens: false })),
    teams: [team],
    workflows: [workflow],
    knowledge: [new Knowledge({ name: "contracts", vectorDb: new InMemoryVectorDb() })],
    interfaces: [
      new AGUI({ agent }),
      new Slack({ agent, token: "xoxb-contracts", signingSecret: "contracts" }),
      new Telegram({
        agent,
        token: "1:AAcontracts_contracts_contracts",
        webhookSecret: "contracts",
        botUsername: "bot",
      }),
      new WhatsApp({ agent, accessToken: "t", phoneNumberId: "1", verifyToken: "v", appSecret: "s" }),
      new A2A({ agents: [agent], teams: [team], workflows: [workflow] }),
    ],
  });
  return os.app.openAPIRegistry.definitions
    .flatMap((d) => (d.type === "route" ? [d.route as unknown as RouteDefinition] : []))
    .map((route) => {
      const segments = route.path.split("/");
      const pattern = new RegExp(
        "^" +
          segments.map((s) => (s.startsWith("{") ? (isPathParam(s) ? "(.+)" : "([^/]+)") : escape(s))).join("/") +
          "$",
      );
      const responses = new Map<number, { schema?: z.ZodType; contentTypes: string[] }>();
      for (const [status, answer] of Object.entries(route.responses)) {
        const content = answer.content ?? {};
        const json = content["application/json"];
        responses.set(Number(status), { schema: json?.schema, contentTypes: Object.keys(content) });
      }
      return {
        method: route.method.toUpperCase(),
        path: route.path,
        pattern,
        literals: segments.filter((s) => !s.startsWith("{")).length,
        isPublic: Array.isArray(route.security) && route.security.length === 0,
        responses,
      };
    });
}

/**
 * A parameter that takes the rest of the path, slashes included: agno's `{x:path}`, a `{path}`,
 * and the media route's `{storage_key}` (agno's `{storage_key:path}`, documented as plain `{storage_key}`).
 */
function isPathParam(segment: string): boolean {
  return segment.endsWith(":path}") || segment === "{path}" || segment === "{storage_key}";
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export const CONTRACTS: readonly Contract[] = readContracts();

/** The route a concrete request is answered by (its path without the query). */
export function contractFor(method: string, path: string): Contract | undefined {
  const bare = path.split("?")[0]!;
  return CONTRACTS.filter((c) => c.method === method.toUpperCase() && c.pattern.test(bare)).sort(
    (a, b) => b.literals - a.literals,
  )[0];
}

export const routeKey = (c: Pick<Contract, "method" | "path">) => `${c.method} ${c.path}`;
