import { NotConfiguredError, ValidationError } from "../errors.js";
import { LazyModel } from "./lazy-model.js";
import type { Model } from "./model.js";
import type { ModelOptions, ModelProvider, ProviderCredentials } from "./model-provider.js";
import { splitModelSpec } from "./model-spec.js";

/**
 * Model providers by name, and `"provider:model-id"` strings resolved through them. The registry
 * imports no provider: the app registers the ones it uses (`register({ openai })`), so a Worker
 * bundles only those provider packages.
 *
 * @example
 * const models = new ModelRegistry({ openai, anthropic }).configure({ credentials: models.credentialsFromEnv(env) });
 * const model = models.resolve("anthropic:claude-sonnet-4-5");
 */
export class ModelRegistry {
  private readonly providers = new Map<string, ModelProvider>();
  private defaults: ModelOptions = {};

  constructor(providers: Record<string, ModelProvider> = {}) {
    this.register(providers);
  }

  /** Adds providers by name (`{ openai, "my-vllm": vllm }`); a name registered again takes the new provider. */
  register(providers: Record<string, ModelProvider>): this {
    for (const [name, provider] of Object.entries(providers)) this.providers.set(name, provider);
    return this;
  }

  /** Options every model of this registry starts from (credentials, pricing, …); a model's own options win, per provider for credentials. */
  configure(defaults: ModelOptions): this {
    this.defaults = defaults;
    return this;
  }

  names(): string[] {
    return [...this.providers.keys()];
  }

  has(name: string): boolean {
    return this.providers.has(name);
  }

  defaultModelOf(name: string): string | undefined {
    return this.providers.get(name)?.defaultModel;
  }

  /** The provider and model id a spec names, with the provider's default model when the spec has none. */
  parse(spec: string): { provider: string; modelId: string } {
    const { provider, modelId } = splitModelSpec(spec);
    const registered = this.providers.get(provider);
    if (!registered) {
      const names = this.names();
      throw new NotConfiguredError(
        `no model provider "${provider}" is registered for "${spec}": ` +
          (names.length ? `registered are ${names.join(", ")}` : "none is registered") +
          ` (register it: defaultModelRegistry.register({ ${/^[a-z]+$/.test(provider) ? provider : `"${provider}": …`} }))`,
      );
    }
    const resolved = modelId || registered.defaultModel;
    if (!resolved) throw new ValidationError(`"${spec}" names no model id: write "${provider}:<model-id>"`, "model");
    return { provider, modelId: resolved };
  }

  /** The model a spec names, built now. */
  resolve(spec: string, options: ModelOptions = {}): Model {
    const { provider, modelId } = this.parse(spec);
    const settings = { ...this.defaults, ...options };
    delete settings.credentials;
    const credentials: ProviderCredentials = {
      ...this.defaults.credentials?.[provider],
      ...options.credentials?.[provider],
    };
    return this.providers.get(provider)!.model(modelId, { ...settings, name: provider, credentials });
  }

  /** The model a spec names, resolved at its first use (so providers may be registered after it is written). */
  model(spec: string, options?: ModelOptions): Model {
    return new LazyModel(this, spec, options);
  }

  /**
   * Credentials of the registered providers from a plain record of environment variables (the
   * Worker's bindings, or `process.env`), by the names each provider reads (`OPENAI_API_KEY`, …).
   */
  credentialsFromEnv(env: Record<string, unknown>): Record<string, ProviderCredentials> {
    const first = (names: string[] = []) =>
      names.map((k) => env[k]).find((v): v is string => typeof v === "string" && v !== "");
    const out: Record<string, ProviderCredentials> = {};
    for (const [name, provider] of this.providers)
      out[name] = { apiKey: first(provider.env?.apiKey), baseURL: first(provider.env?.baseURL) };
    return out;
  }
}
