import { createAnthropic } from "@ai-sdk/anthropic";
import { createCerebras } from "@ai-sdk/cerebras";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createGroq } from "@ai-sdk/groq";
import { createMistral } from "@ai-sdk/mistral";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { ValidationError } from "../errors.js";
import { AiSdkModel, type ModelSettings } from "./ai-sdk-model.js";
import type { Model } from "./model.js";

export const PROVIDERS = [
  "openai",
  "openai-responses",
  "anthropic",
  "google",
  "groq",
  "cerebras",
  "mistral",
  "openrouter",
  "ollama",
  "vllm",
  "openai-compatible",
] as const;
export type ProviderName = (typeof PROVIDERS)[number];

export interface ProviderCredentials {
  apiKey?: string;
  baseURL?: string;
  headers?: Record<string, string>;
}

export interface ModelOptions extends ModelSettings {
  /** keys and base URLs per provider; see `credentialsFromEnv` */
  credentials?: Partial<Record<ProviderName, ProviderCredentials>>;
  /** OpenAI reasoning models: `reasoning_effort` */
  reasoningEffort?: "none" | "minimal" | "low" | "medium" | "high" | "xhigh";
  /** OpenAI Responses API: `reasoning.summary` */
  reasoningSummary?: "auto" | "concise" | "detailed";
  /** OpenAI: `service_tier` */
  serviceTier?: "auto" | "default" | "flex" | "priority";
  /** OpenAI: `verbosity` */
  verbosity?: "low" | "medium" | "high";
}

/** Model ids used when a spec names only the provider (`"groq"` or `"groq:"`). */
const DEFAULT_MODELS: Partial<Record<ProviderName, string>> = {
  groq: "openai/gpt-oss-120b",
  cerebras: "gpt-oss-120b",
  openai: "gpt-4.1-mini",
  anthropic: "claude-sonnet-4-5",
  google: "gemini-2.5-flash",
};

const DEFAULT_BASE_URLS: Partial<Record<ProviderName, string>> = {
  openrouter: "https://openrouter.ai/api/v1",
  ollama: "http://localhost:11434/v1",
  vllm: "http://localhost:8000/v1",
};

/** Splits `"provider:model-id"`; the id may itself hold colons (`ollama:llama3.2:3b`). */
export function parseModelSpec(spec: string): { provider: ProviderName; modelId: string } {
  const at = spec.indexOf(":");
  const provider = (at === -1 ? spec : spec.slice(0, at)) as ProviderName;
  if (!PROVIDERS.includes(provider)) {
    throw new ValidationError(`unknown model provider "${provider}" in "${spec}"; use one of ${PROVIDERS.join(", ")}`, "model");
  }
  const modelId = at === -1 ? "" : spec.slice(at + 1);
  const resolved = modelId || DEFAULT_MODELS[provider];
  if (!resolved) throw new ValidationError(`"${spec}" names no model id: write "${provider}:<model-id>"`, "model");
  return { provider, modelId: resolved };
}

function openAIOptions(opts: ModelOptions): ModelSettings["providerOptions"] {
  const openai = {
    ...(opts.reasoningEffort && { reasoningEffort: opts.reasoningEffort }),
    ...(opts.reasoningSummary && { reasoningSummary: opts.reasoningSummary }),
    ...(opts.serviceTier && { serviceTier: opts.serviceTier }),
    ...(opts.verbosity && { textVerbosity: opts.verbosity }),
  };
  return Object.keys(openai).length ? { ...opts.providerOptions, openai: { ...opts.providerOptions?.openai, ...openai } } : opts.providerOptions;
}

/**
 * A model from a `"provider:model-id"` string, over the AI SDK provider packages.
 * `openai` speaks Chat Completions (as agno's OpenAIChat, and what every OpenAI-compatible
 * server speaks); `openai-responses` speaks the Responses API.
 *
 * @example
 * const model = createModel("openai:gpt-4.1-mini", { credentials: { openai: { apiKey } }, reasoningEffort: "low" });
 * const local = createModel("ollama:llama3.2");               // http://localhost:11434/v1
 */
export function createModel(spec: string, opts: ModelOptions = {}): Model {
  const { provider, modelId } = parseModelSpec(spec);
  const c = { ...opts.credentials?.[provider] };
  // A self-hosted OpenAI-compatible server usually wants no key, but the OpenAI package insists
  // on one: send a placeholder only when the caller chose the base URL.
  if (provider === "openai" && c.baseURL && !c.apiKey) c.apiKey = "no-key";
  c.baseURL ??= DEFAULT_BASE_URLS[provider];
  let language: LanguageModelV3;
  let settings: ModelSettings = opts;
  switch (provider) {
    case "openai":
      language = createOpenAI(c).chat(modelId);
      settings = { ...opts, providerOptions: openAIOptions(opts) };
      break;
    case "openai-responses":
      language = createOpenAI(c).responses(modelId);
      settings = { ...opts, providerOptions: openAIOptions(opts) };
      break;
    case "anthropic":
      language = createAnthropic(c)(modelId);
      break;
    case "google":
      language = createGoogleGenerativeAI(c)(modelId);
      break;
    case "groq":
      language = createGroq(c)(modelId);
      break;
    case "cerebras":
      language = createCerebras(c)(modelId);
      break;
    case "mistral":
      language = createMistral(c)(modelId);
      break;
    default: {
      if (!c.baseURL) throw new ValidationError(`${provider} needs a base URL (credentials.${provider}.baseURL)`, "model");
      language = createOpenAICompatible({ name: provider, baseURL: c.baseURL, apiKey: c.apiKey, headers: c.headers }).chatModel(modelId);
    }
  }
  return new AiSdkModel(language, settings, provider);
}

/**
 * Where each provider's key and base URL come from in the environment; several names are tried
 * in order. The single source for `credentialsFromEnv` and for what `npm run dev` forwards.
 */
const ENV_NAMES: Record<ProviderName, { apiKey?: string[]; baseURL?: string[] }> = {
  openai: { apiKey: ["OPENAI_API_KEY"], baseURL: ["OPENAI_BASE_URL"] },
  "openai-responses": { apiKey: ["OPENAI_API_KEY"], baseURL: ["OPENAI_BASE_URL"] },
  anthropic: { apiKey: ["ANTHROPIC_API_KEY"], baseURL: ["ANTHROPIC_BASE_URL"] },
  google: { apiKey: ["GOOGLE_GENERATIVE_AI_API_KEY", "GOOGLE_API_KEY"] },
  groq: { apiKey: ["GROQ_API_KEY"] },
  cerebras: { apiKey: ["CEREBRAS_API_KEY"] },
  mistral: { apiKey: ["MISTRAL_API_KEY"] },
  openrouter: { apiKey: ["OPENROUTER_API_KEY"] },
  ollama: { baseURL: ["OLLAMA_BASE_URL"] },
  vllm: { apiKey: ["VLLM_API_KEY"], baseURL: ["VLLM_BASE_URL"] },
  "openai-compatible": { apiKey: ["OPENAI_COMPATIBLE_API_KEY"], baseURL: ["OPENAI_COMPATIBLE_BASE_URL"] },
};

/** Every environment variable `credentialsFromEnv` reads. */
export const PROVIDER_ENV_VARS: string[] = [...new Set(Object.values(ENV_NAMES).flatMap((n) => [...(n.apiKey ?? []), ...(n.baseURL ?? [])]))];

/**
 * Provider credentials from a plain record of environment variables (the Worker passes its
 * bindings; Node passes `process.env`), by the names in `PROVIDER_ENV_VARS`: `OPENAI_API_KEY`,
 * `OPENAI_BASE_URL`, `ANTHROPIC_API_KEY`, `GROQ_API_KEY`, `OLLAMA_BASE_URL`, and so on.
 */
export function credentialsFromEnv(env: Record<string, unknown>): Partial<Record<ProviderName, ProviderCredentials>> {
  const first = (names: string[] = []) => names.map((k) => env[k]).find((v): v is string => typeof v === "string" && v !== "");
  const out: Partial<Record<ProviderName, ProviderCredentials>> = {};
  for (const [provider, names] of Object.entries(ENV_NAMES) as Array<[ProviderName, { apiKey?: string[]; baseURL?: string[] }]>) {
    out[provider] = { apiKey: first(names.apiKey), baseURL: first(names.baseURL) };
  }
  return out;
}
