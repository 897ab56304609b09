import { createOpenAI } from "@ai-sdk/openai";
import { AiSdkModel } from "../ai-sdk-model.js";
import type { ModelProvider } from "../model-provider.js";
import { openAIOptions } from "../openai-options.js";
import { xaiHeadersFor, type XaiOAuthOptions } from "../xai/xai-credential.js";
import { XAI_BASE_URL, XAI_DEFAULT_MODEL } from "./xai.js";

/**
 * xAI over the Responses API (agno's `xAIResponses`), stateless (`store: false`), with the same
 * API key or SuperGrok sign-in as `xaiProvider`.
 */
export function xaiResponsesProvider(oauth: XaiOAuthOptions = {}): ModelProvider {
  return {
    defaultModel: XAI_DEFAULT_MODEL,
    env: { apiKey: ["XAI_API_KEY"], baseURL: ["XAI_BASE_URL"] },
    model: (id, opts) => {
      const c = opts.credentials;
      const providerOptions = openAIOptions(opts);
      return new AiSdkModel(
        createOpenAI({
          baseURL: c.baseURL ?? XAI_BASE_URL,
          // The OpenAI package insists on a key; with sign-in the per-call bearer replaces it.
          apiKey: c.apiKey ?? (oauth.tokenManager ? "supergrok" : undefined),
          headers: c.headers,
          name: opts.name,
        }).responses(id),
        {
          headersFor: xaiHeadersFor(oauth, Boolean(c.apiKey)),
          ...opts,
          providerOptions: { ...providerOptions, openai: { store: false, ...providerOptions?.openai } },
        },
        opts.name,
      );
    },
  };
}

export const xaiResponses: ModelProvider = /* @__PURE__ */ xaiResponsesProvider();
