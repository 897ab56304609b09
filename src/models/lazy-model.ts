import type { MediaInfo, Model, ModelChunk, ModelRequest } from "./model.js";
import type { ModelOptions } from "./model-provider.js";
import { splitModelSpec } from "./model-spec.js";

/** Where a lazy model is resolved: a `ModelRegistry`, as far as this module needs to know. */
interface Resolver {
  resolve(spec: string, options?: ModelOptions): Model;
  defaultModelOf(provider: string): string | undefined;
}

/**
 * A `"provider:model-id"` model resolved through a registry at its first use, not when it is
 * written: an agent defined at the top of a Worker's module gets its provider from whatever the
 * app registers before the first run. An unregistered provider fails that run (or its media
 * check) with an error naming the providers that are registered.
 */
export class LazyModel implements Model {
  readonly provider: string;
  private readonly modelId: string;
  private model?: Model;

  constructor(
    private readonly registry: Resolver,
    private readonly spec: string,
    private readonly options?: ModelOptions,
  ) {
    ({ provider: this.provider, modelId: this.modelId } = splitModelSpec(spec));
  }

  get id(): string {
    return this.model?.id ?? (this.modelId || this.registry.defaultModelOf(this.provider) || "");
  }

  stream(request: ModelRequest): AsyncIterable<ModelChunk> {
    let model: Model;
    try {
      model = this.resolved();
    } catch (error) {
      return failing(error);
    }
    return model.stream(request);
  }

  checkMedia(media: MediaInfo[]): void {
    this.resolved().checkMedia?.(media);
  }

  private resolved(): Model {
    return (this.model ??= this.registry.resolve(this.spec, this.options));
  }
}

async function* failing(error: unknown): AsyncIterable<ModelChunk> {
  throw error;
}
