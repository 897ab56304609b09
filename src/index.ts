/**
 * The repository's example Worker (what `npm run dev` serves): the assistant, a small team and a
 * workflow, defined with `agno-edge/workers` as any user's Worker is. The library reads and
 * validates the env, serves the HTTP API, runs the durable queue and the cron tick; this file
 * only says what is served.
 */
import { exampleAssistant } from "./example/assistant.js";
import { exampleBlogPost } from "./example/blog-post.js";
import { exampleWritingDesk } from "./example/writing-desk.js";
import { createModel, credentialsFromEnv } from "./models/providers.js";
import type { Model } from "./models/model.js";
import { UnconfiguredModel } from "./models/unconfigured-model.js";
import { WorkersAIModel, type WorkersAIBinding } from "./models/workers-ai-model.js";
import { defineAgentOS, type WorkerEnv } from "./workers.js";

export interface Env extends WorkerEnv {
  OPENAI_API_KEY?: string;
  OPENAI_BASE_URL?: string;
  ANTHROPIC_API_KEY?: string;
  GROQ_API_KEY?: string;
  /** the Workers AI binding, for `MODEL=workers-ai:@cf/…` (add `[ai] binding = "AI"` to wrangler.toml) */
  AI?: WorkersAIBinding;
}

/** The example agent's model: Workers AI through its binding, a provider by name, or none yet (MODEL is validated already). */
function modelFrom(env: Env): Model {
  if (!env.MODEL) return new UnconfiguredModel();
  if (env.MODEL.startsWith("workers-ai:") && env.AI)
    return new WorkersAIModel(env.AI, env.MODEL.slice("workers-ai:".length));
  return createModel(env.MODEL, { credentials: credentialsFromEnv(env as unknown as Record<string, unknown>) });
}

const os = defineAgentOS({
  // With a bucket, the example agent offloads large tool results to it (SPEC O1).
  agents: (env: Env, config) => [
    exampleAssistant(modelFrom(env), {
      offloadToolResults: env.STORAGE !== undefined,
      heartbeatSeconds: config.heartbeatSeconds,
    }),
  ],
  // A small team (a researcher and a writer) and a workflow with a person's review before writing.
  teams: (env: Env, config) => [exampleWritingDesk(modelFrom(env), { heartbeatSeconds: config.heartbeatSeconds })],
  workflows: (env: Env, config) => [exampleBlogPost(modelFrom(env), { heartbeatSeconds: config.heartbeatSeconds })],
});

export default os;
export const { JobQueue, CodeModeSession } = os;
