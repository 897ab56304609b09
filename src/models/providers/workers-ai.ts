import type { ModelProvider } from "../model-provider.js";
import { WorkersAIModel, type WorkersAIBinding } from "../workers-ai-model.js";

/**
 * Workers AI through the Worker's AI binding (`[ai] binding = "AI"`): register it per env, since
 * the binding arrives with the env (`register({ "workers-ai": workersAI(env.AI) })`).
 */
export function workersAI(binding: WorkersAIBinding): ModelProvider {
  return { model: (id, opts) => new WorkersAIModel(binding, id, opts) };
}
