import { NotConfiguredError } from "../errors.js";
import type { Model, ModelChunk } from "./model.js";

/**
 * Stands in when no model is configured, so the runtime still serves everything else and a run
 * fails with an error that says exactly how to configure one.
 */
export class UnconfiguredModel implements Model {
  readonly id = "unconfigured";
  readonly provider = "none";

  constructor(
    private readonly reason = "no model is configured: set MODEL=provider:model-id (for example openai:gpt-4.1-mini, anthropic:claude-sonnet-4-5, " +
      "groq:openai/gpt-oss-120b, ollama:llama3.2) and the provider's key (OPENAI_API_KEY, ANTHROPIC_API_KEY, …) or base URL " +
      "(OPENAI_BASE_URL for any OpenAI-compatible server)",
  ) {}

  async *stream(): AsyncIterable<ModelChunk> {
    throw new NotConfiguredError(this.reason);
  }
}
