import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { AiSdkModel } from "../ai-sdk-model.js";
import type { ModelProvider } from "../model-provider.js";
import { xaiHeadersFor, type XaiOAuthOptions } from "../xai/xai-credential.js";

export const XAI_BASE_URL = "https://api.x.ai/v1";
export const XAI_DEFAULT_MODEL = "grok-4-1-fast-non-reasoning-latest";

/**
 * xAI over its OpenAI-compatible Chat Completions API, paid by `XAI_API_KEY` or, with a token
 * manager, by the run's user's SuperGrok subscription (see `XAITokenManager`).
 *
 * @example
 * defaultModelRegistry.register({ xai: xaiProvider({ tokenManager }) });
 * new Agent({ model: "xai:grok-4-1-fast-non-reasoning-latest" });
 */
export function xaiProvider(oauth: XaiOAuthOptions = {}): ModelProvider {
  return {
    defaultModel: XAI_DEFAULT_MODEL,
    env: { apiKey: ["XAI_API_KEY"], baseURL: ["XAI_BASE_URL"] },
    model: (id, { credentials: c, name, ...settings }) =>
      new AiSdkModel(
        createOpenAICompatible({
          name,
          baseURL: c.baseURL ?? XAI_BASE_URL,
          apiKey: c.apiKey,
          headers: c.headers,
          includeUsage: true,
        }).chatModel(id),
        { headersFor: xaiHeadersFor(oauth, Boolean(c.apiKey)), ...settings },
        name,
      ),
  };
}

/** xAI with an API key only; register `xaiProvider({ tokenManager })` for SuperGrok sign-in. */
export const xai: ModelProvider = /* @__PURE__ */ xaiProvider();
