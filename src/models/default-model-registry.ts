import { ModelRegistry } from "./model-registry.js";

/**
 * The isolate's registry, through which an Agent resolves a `"provider:model-id"` string. It
 * starts empty: the app registers the providers it uses (`defaultModelRegistry.register({ openai })`).
 */
export const defaultModelRegistry = /* @__PURE__ */ new ModelRegistry();
