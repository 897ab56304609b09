import { createOpenAI } from "@ai-sdk/openai";
import { ValidationError } from "../../errors.js";
import { AiSdkModel } from "../ai-sdk-model.js";
import type { ModelProvider } from "../model-provider.js";
import { openAIOptions } from "../openai-options.js";

export const RAMP_ROUTER_BASE_URL = "https://api.router.com/v1";
export const RAMP_DEFAULT_MODEL = "gpt-5.6-luna";

/** Router-only request fields (agno's `RampRouter` attributes). */
export interface RampRouterOptions {
  /**
   * routing candidates tried in order (`router.catalog_id` values such as `"openai:gpt-5-nano"`,
   * optionally with a service tier: `"openai:gpt-5-nano:flex"`); sent instead of the model id,
   * since Router rejects a request naming both
   */
  models?: string[];
  /** the flex service tier (OpenAI and Vertex models only, and not with `models`) */
  allowFlexTier?: boolean;
  /** seconds to wait on the upstream provider before failing over to the next candidate */
  providerTimeout?: number;
  /** seconds to wait for the upstream provider's first response headers */
  timeoutBeforeHeaders?: number;
}

/**
 * Ramp Router, an OpenAI Responses API gateway in front of several providers (`/v1/responses`
 * only, no Chat Completions), keyed by `RAMP_ROUTER_API_KEY`. The full history is replayed each
 * turn (no `previous_response_id`), which holds on every backing.
 *
 * @example
 * defaultModelRegistry.register({ ramp: rampProvider({ models: ["openai:gpt-5-nano", "anthropic:claude-haiku-4-5"] }) });
 * new Agent({ model: "ramp" });
 */
export function rampProvider(router: RampRouterOptions = {}): ModelProvider {
  if (router.models && router.allowFlexTier)
    throw new ValidationError("Ramp Router refuses allowFlexTier with a models list", "allowFlexTier");
  const extra: Record<string, unknown> = {
    ...(router.allowFlexTier !== undefined && { allow_flex_tier: router.allowFlexTier }),
    ...(router.providerTimeout !== undefined && { provider_timeout: router.providerTimeout }),
    ...(router.timeoutBeforeHeaders !== undefined && { timeout_before_headers: router.timeoutBeforeHeaders }),
    ...(router.models?.length && { models: router.models }),
  };
  return {
    defaultModel: RAMP_DEFAULT_MODEL,
    env: { apiKey: ["RAMP_ROUTER_API_KEY"], baseURL: ["RAMP_ROUTER_BASE_URL"] },
    model: (id, opts) =>
      new AiSdkModel(
        createOpenAI({
          baseURL: opts.credentials.baseURL ?? RAMP_ROUTER_BASE_URL,
          apiKey: opts.credentials.apiKey,
          headers: opts.credentials.headers,
          name: opts.name,
          fetch: (input, init) => fetch(input, routerBody(init, extra)),
        }).responses(id),
        { ...opts, providerOptions: openAIOptions(opts) },
        opts.name,
      ),
  };
}

/** Router with its defaults; `rampProvider({...})` for candidates and timeouts. */
export const ramp: ModelProvider = /* @__PURE__ */ rampProvider();

/**
 * The Responses request as Router takes it: its own fields added, `model` left out when a
 * candidate list is sent, and each function tool reduced to the fields the API defines, since
 * Router hands the tool object on to the upstream provider, which validates it.
 */
function routerBody(init: RequestInit | undefined, extra: Record<string, unknown>): RequestInit | undefined {
  if (typeof init?.body !== "string") return init;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(init.body) as Record<string, unknown>;
  } catch {
    return init;
  }
  Object.assign(body, extra);
  if (extra.models) delete body.model;
  if (Array.isArray(body.tools))
    body.tools = body.tools.map((tool: Record<string, unknown>) =>
      tool.type === "function"
        ? Object.fromEntries(Object.entries(tool).filter(([k]) => FUNCTION_TOOL_KEYS.has(k)))
        : tool,
    );
  return { ...init, body: JSON.stringify(body) };
}

const FUNCTION_TOOL_KEYS = new Set(["type", "name", "description", "parameters", "strict"]);
