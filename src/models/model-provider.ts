import type { ModelSettings } from "./ai-sdk-model.js";
import type { Model } from "./model.js";

export interface ProviderCredentials {
  apiKey?: string;
  baseURL?: string;
  headers?: Record<string, string>;
}

export interface ModelOptions extends ModelSettings {
  /** keys and base URLs per provider name; see `credentialsFromEnv` */
  credentials?: Partial<Record<string, ProviderCredentials>>;
  /** OpenAI reasoning models: `reasoning_effort` */
  reasoningEffort?: "none" | "minimal" | "low" | "medium" | "high" | "xhigh";
  /** OpenAI Responses API: `reasoning.summary` */
  reasoningSummary?: "auto" | "concise" | "detailed";
  /** OpenAI: `service_tier` */
  serviceTier?: "auto" | "default" | "flex" | "priority";
  /** OpenAI: `verbosity` */
  verbosity?: "low" | "medium" | "high";
}

/** What a provider is handed to build one model: the options, with this provider's credentials only. */
export interface ProviderModelOptions extends Omit<ModelOptions, "credentials"> {
  /** the name the provider is registered under, which the model reports as its provider */
  name: string;
  credentials: ProviderCredentials;
}

/**
 * One model provider (OpenAI, Anthropic, an OpenAI-compatible server, …): it turns a model id into
 * a `Model`. Each lives in a module of its own (`src/models/providers/*`) so that a Worker bundles
 * only the provider packages it registers.
 *
 * @example
 * import { defaultModelRegistry, openai } from "agno-edge";
 * defaultModelRegistry.register({ openai });
 * new Agent({ model: "openai:gpt-4.1-mini" });
 */
export interface ModelProvider {
  /** the model id a spec that names only the provider gets (`"groq"` or `"groq:"`) */
  readonly defaultModel?: string;
  /** environment variables its key and base URL are read from, first set wins (`credentialsFromEnv`) */
  readonly env?: { apiKey?: string[]; baseURL?: string[] };
  model(modelId: string, options: ProviderModelOptions): Model;
}
