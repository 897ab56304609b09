import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { ValidationError } from "../errors.js";
import { AiSdkModel } from "./ai-sdk-model.js";
import type { ModelProvider } from "./model-provider.js";

/**
 * A provider for any server that speaks OpenAI's chat protocol, at `baseURL` unless the
 * credentials name another; `env` names the variables its key and base URL are read from.
 *
 * @example
 * defaultModelRegistry.register({ lmstudio: openAICompatibleProvider({ baseURL: "http://localhost:1234/v1" }) });
 */
export function openAICompatibleProvider(
  opts: { baseURL?: string; env?: ModelProvider["env"]; defaultModel?: string } = {},
): ModelProvider {
  return {
    defaultModel: opts.defaultModel,
    env: opts.env,
    model: (id, { credentials: c, name, ...settings }) => {
      const baseURL = c.baseURL ?? opts.baseURL;
      if (!baseURL) throw new ValidationError(`${name} needs a base URL (credentials.${name}.baseURL)`, "model");
      return new AiSdkModel(
        createOpenAICompatible({ name, baseURL, apiKey: c.apiKey, headers: c.headers }).chatModel(id),
        settings,
        name,
      );
    },
  };
}
