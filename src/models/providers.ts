/**
 * The convenience over every built-in provider: `createModel` and `credentialsFromEnv` as before
 * the registry. Importing this module bundles all their packages; a Worker that uses one provider
 * registers that one instead (see ModelRegistry).
 */
import { ValidationError } from "../errors.js";
import type { Model } from "./model.js";
import type { ModelOptions, ModelProvider, ProviderCredentials } from "./model-provider.js";
import { ModelRegistry } from "./model-registry.js";
import { splitModelSpec } from "./model-spec.js";
import { anthropic } from "./providers/anthropic.js";
import { cerebras } from "./providers/cerebras.js";
import { google } from "./providers/google.js";
import { groq } from "./providers/groq.js";
import { mistral } from "./providers/mistral.js";
import { ollama } from "./providers/ollama.js";
import { openai } from "./providers/openai.js";
import { openaiCompatible } from "./providers/openai-compatible.js";
import { openaiResponses } from "./providers/openai-responses.js";
import { openrouter } from "./providers/openrouter.js";
import { vllm } from "./providers/vllm.js";
import { xai } from "./providers/xai.js";
import { xaiResponses } from "./providers/xai-responses.js";
import { ramp } from "./providers/ramp.js";

export type { ModelOptions, ProviderCredentials } from "./model-provider.js";

/** Every built-in provider by the name a model string uses. */
export const BUILTIN_PROVIDERS = {
  openai,
  "openai-responses": openaiResponses,
  anthropic,
  google,
  groq,
  cerebras,
  mistral,
  openrouter,
  ollama,
  vllm,
  "openai-compatible": openaiCompatible,
  xai,
  "xai-responses": xaiResponses,
  ramp,
} satisfies Record<string, ModelProvider>;

export type ProviderName = keyof typeof BUILTIN_PROVIDERS;
// Top-level values are computed in calls marked pure, so that a bundler drops this module (and every
// provider package) from a Worker that does not use it, whatever its sideEffects setting.
export const PROVIDERS = /* @__PURE__ */ Object.keys(BUILTIN_PROVIDERS) as ProviderName[];

let registry: ModelRegistry | undefined;
const builtins = () => (registry ??= new ModelRegistry(BUILTIN_PROVIDERS));

/** Splits `"provider:model-id"` over the built-in providers; the id may itself hold colons (`ollama:llama3.2:3b`). */
export function parseModelSpec(spec: string): { provider: ProviderName; modelId: string } {
  const { provider } = splitModelSpec(spec);
  if (!builtins().has(provider)) {
    throw new ValidationError(
      `unknown model provider "${provider}" in "${spec}"; use one of ${PROVIDERS.join(", ")}`,
      "model",
    );
  }
  return builtins().parse(spec) as { provider: ProviderName; modelId: string };
}

/**
 * A model from a `"provider:model-id"` string, over the built-in providers' AI SDK packages.
 * `openai` speaks Chat Completions (as agno's OpenAIChat, and what every OpenAI-compatible
 * server speaks); `openai-responses` speaks the Responses API.
 *
 * @example
 * const model = createModel("openai:gpt-4.1-mini", { credentials: { openai: { apiKey } }, reasoningEffort: "low" });
 * const local = createModel("ollama:llama3.2");               // http://localhost:11434/v1
 */
export function createModel(spec: string, opts: ModelOptions = {}): Model {
  parseModelSpec(spec);
  return builtins().resolve(spec, opts);
}

/** Every environment variable `credentialsFromEnv` reads. */
export const PROVIDER_ENV_VARS: string[] = /* @__PURE__ */ envVarsOf(BUILTIN_PROVIDERS);

function envVarsOf(providers: Record<string, ModelProvider>): string[] {
  return [...new Set(Object.values(providers).flatMap((p) => [...(p.env?.apiKey ?? []), ...(p.env?.baseURL ?? [])]))];
}

/**
 * Provider credentials from a plain record of environment variables (the Worker passes its
 * bindings; Node passes `process.env`), by the names in `PROVIDER_ENV_VARS`: `OPENAI_API_KEY`,
 * `OPENAI_BASE_URL`, `ANTHROPIC_API_KEY`, `GROQ_API_KEY`, `OLLAMA_BASE_URL`, and so on.
 */
export function credentialsFromEnv(env: Record<string, unknown>): Partial<Record<ProviderName, ProviderCredentials>> {
  return builtins().credentialsFromEnv(env);
}
