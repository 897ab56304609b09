/**
 * The repository's example Worker (what `npm run dev` serves): the assistant, a small team and a
 * workflow, defined with `agno-edge/workers` as any user's Worker is. The library reads and
 * validates the env, serves the HTTP API, runs the durable queue and the cron tick; this file
 * only says what is served.
 */
import type { Agent } from "./agent/agent.js";
import { exampleAssistant } from "./example/assistant.js";
import { exampleInterfaces } from "./example/interfaces.js";
import { A2A } from "./interfaces/a2a/a2a.js";
import { mcpServer } from "./mcp/mcp-server.js";
import { exampleBlogPost } from "./example/blog-post.js";
import { exampleKnowledge } from "./example/knowledge.js";
import type { Knowledge } from "./knowledge/knowledge.js";
import type { Embedder } from "./knowledge/embedder.js";
import { embedderFromSpec } from "./knowledge/embedders/embedder-spec.js";
import { WorkersAIEmbedder } from "./knowledge/embedders/workers-ai-embedder.js";
import type { WorkerConfig } from "./worker/env-config.js";
import { exampleWritingDesk } from "./example/writing-desk.js";
import { createModel, credentialsFromEnv } from "./models/providers.js";
import { ModelRegistry } from "./models/model-registry.js";
import type { Model } from "./models/model.js";
import { UnconfiguredModel } from "./models/unconfigured-model.js";
import { WorkersAIModel, type WorkersAIBinding } from "./models/workers-ai-model.js";
import { xaiProvider } from "./models/providers/xai.js";
import { xaiResponsesProvider } from "./models/providers/xai-responses.js";
import { defineAgentOS, xaiSignIn, type WorkerEnv, type XaiSignIn } from "./workers.js";

export interface Env extends WorkerEnv {
  OPENAI_API_KEY?: string;
  OPENAI_BASE_URL?: string;
  ANTHROPIC_API_KEY?: string;
  GROQ_API_KEY?: string;
  /** the Workers AI binding, for `MODEL=workers-ai:@cf/…` (add `[ai] binding = "AI"` to wrangler.toml) */
  AI?: WorkersAIBinding;
}

/** SuperGrok sign-in, one per env, when XAI_TOKEN_ENCRYPTION_KEY is set: the routes and the xAI models share its tokens. */
const xaiByEnv = new WeakMap<Env, { signIn?: XaiSignIn }>();
function xaiFrom(env: Env, config: WorkerConfig): XaiSignIn | undefined {
  let found = xaiByEnv.get(env);
  if (!found) xaiByEnv.set(env, (found = { signIn: xaiSignIn(config) }));
  return found.signIn;
}

/**
 * The example agent's model: Workers AI through its binding, xAI on the caller's SuperGrok sign-in
 * when it is on, a provider by name, or none yet (MODEL is validated already).
 */
function modelFrom(env: Env, config: WorkerConfig): Model {
  if (!env.MODEL) return new UnconfiguredModel();
  if (env.MODEL.startsWith("workers-ai:") && env.AI)
    return new WorkersAIModel(env.AI, env.MODEL.slice("workers-ai:".length));
  const credentials = credentialsFromEnv(env as unknown as Record<string, unknown>);
  const signIn = xaiFrom(env, config);
  if (signIn && /^xai(-responses)?:/.test(env.MODEL)) {
    const xai = (env.MODEL.startsWith("xai:") ? xaiProvider : xaiResponsesProvider)({
      tokenManager: signIn.tokenManager,
    });
    return new ModelRegistry({ xai, "xai-responses": xai }).resolve(env.MODEL, { credentials });
  }
  return createModel(env.MODEL, { credentials });
}

/** The embedder EMBEDDER names (validated: a known provider), with the model's credentials and base URL. */
function embedderFrom(env: Env, spec: string): Embedder | undefined {
  const [provider = "", model = ""] = [spec.slice(0, spec.indexOf(":")), spec.slice(spec.indexOf(":") + 1)];
  if (provider === "workers-ai") return env.AI ? new WorkersAIEmbedder(env.AI, model) : undefined;
  const credentials = credentialsFromEnv(env as unknown as Record<string, unknown>) as Record<string, object>;
  return embedderFromSpec(spec, credentials[provider] ?? {});
}

/**
 * The example knowledge base, one per env (the HTTP app and the queue share it): embedded with
 * EMBEDDER, else MODEL's provider's embedding model; none when neither names one.
 */
const knowledgeByEnv = new WeakMap<Env, Knowledge | null>();
function knowledgeFrom(env: Env, config: WorkerConfig): Knowledge | undefined {
  if (!knowledgeByEnv.has(env)) {
    const embedder = config.embedder ? embedderFrom(env, config.embedder) : undefined;
    knowledgeByEnv.set(env, embedder ? exampleKnowledge(embedder) : null);
  }
  return knowledgeByEnv.get(env) ?? undefined;
}

/** The example assistant, one per env: the HTTP app, the queue and the chat interfaces share it. */
const assistantByEnv = new WeakMap<Env, Agent>();
function assistantFrom(env: Env, config: WorkerConfig): Agent {
  let agent = assistantByEnv.get(env);
  if (!agent) {
    // With a bucket, the example agent offloads large tool results to it (SPEC O1).
    agent = exampleAssistant(modelFrom(env, config), {
      offloadToolResults: env.STORAGE !== undefined,
      heartbeatSeconds: config.heartbeatSeconds,
      knowledge: knowledgeFrom(env, config),
    });
    assistantByEnv.set(env, agent);
  }
  return agent;
}

/** One per env, as the assistant: the HTTP app and the interfaces in front of it share it. */
function perEnv<T extends object>(make: (env: Env, config: WorkerConfig) => T) {
  const made = new WeakMap<Env, T>();
  return (env: Env, config: WorkerConfig): T => {
    const found = made.get(env);
    if (found) return found;
    const value = make(env, config);
    made.set(env, value);
    return value;
  };
}
// A small team (a researcher and a writer) and a workflow with a person's review before writing.
const writingDeskFrom = perEnv((env, config) =>
  exampleWritingDesk(modelFrom(env, config), { heartbeatSeconds: config.heartbeatSeconds }),
);
const blogPostFrom = perEnv((env, config) =>
  exampleBlogPost(modelFrom(env, config), { heartbeatSeconds: config.heartbeatSeconds }),
);

const os = defineAgentOS({
  agents: (env: Env, config) => [assistantFrom(env, config)],
  interfaces: (env: Env, config) => [
    // AG-UI in front of the assistant; Slack, Telegram and WhatsApp bots too, each when its secrets are set.
    ...exampleInterfaces(assistantFrom(env, config), config),
    // The Agent2Agent protocol (agno's /a2a routes) for the assistant, the team and the workflow.
    new A2A({
      agents: [assistantFrom(env, config)],
      teams: [writingDeskFrom(env, config)],
      workflows: [blogPostFrom(env, config)],
    }),
  ],
  teams: (env: Env, config) => [writingDeskFrom(env, config)],
  workflows: (env: Env, config) => [blogPostFrom(env, config)],
  // The AgentOS as an MCP server at /mcp (agno's built-in tools), for Claude Desktop and other MCP clients.
  mcpServer: mcpServer(),
  // SuperGrok sign-in under /models/xai/login, when XAI_TOKEN_ENCRYPTION_KEY is set.
  xaiLogin: (env: Env, config) => xaiFrom(env, config)?.routes,
});

export default os;
export const { JobQueue, CodeModeSession } = os;
