import type { ProviderCredentials } from "./model-provider.js";

/**
 * A self-hosted OpenAI-compatible server usually wants no key, but the OpenAI package insists on
 * one: send a placeholder only when the caller chose the base URL.
 */
export function openAICredentials(c: ProviderCredentials): ProviderCredentials {
  return c.baseURL && !c.apiKey ? { ...c, apiKey: "no-key" } : c;
}
