import { ValidationError } from "../errors.js";
import { mediaOf, type MediaKind, type Message } from "./message.js";
import { emptyUsage, type MediaInfo, type Model, type ModelChunk, type ModelRequest } from "./model.js";
import { ModelProviderError } from "./provider-error.js";

/** The part of the Workers AI binding (`env.AI`) this adapter uses. */
export interface WorkersAIBinding {
  run(model: string, inputs: Record<string, unknown>, options?: Record<string, unknown>): Promise<unknown>;
}

interface WorkersAIToolCall {
  id?: string;
  name?: string;
  arguments?: unknown;
  function?: { name: string; arguments: unknown };
}

interface WorkersAIResult {
  response?: unknown;
  tool_calls?: WorkersAIToolCall[];
  usage?: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number };
}

/**
 * Workers AI models that read images, per their published input schemas (messages whose content
 * may hold `image_url` parts). Others take text only; `images: true` opts a model in.
 */
const VISION_MODELS = new Set([
  "@cf/meta/llama-3.2-11b-vision-instruct",
  "@cf/meta/llama-4-scout-17b-16e-instruct",
  "@cf/mistralai/mistral-small-3.1-24b-instruct",
  "@cf/google/gemma-3-12b-it",
]);

export interface WorkersAISettings {
  temperature?: number;
  maxOutputTokens?: number;
  /** whether the model reads images (default: known for the vision models Workers AI lists) */
  images?: boolean;
  /** retries of retryable failures (rate limit, server, network); default 2. The binding answers whole, so nothing was sent yet */
  maxRetries?: number;
}

/**
 * Workers AI through its binding (`[ai] binding = "AI"` in wrangler.toml), e.g.
 * `@cf/meta/llama-3.3-70b-instruct-fp8-fast`. The binding's function calling answers whole
 * (no token stream with tools), so the reply arrives as one chunk; usage comes from the
 * binding's `usage` when the model reports it.
 *
 * @example
 * const model = new WorkersAIModel(env.AI, "@cf/meta/llama-3.3-70b-instruct-fp8-fast");
 */
export class WorkersAIModel implements Model {
  readonly provider = "workers-ai";

  constructor(
    private readonly binding: WorkersAIBinding,
    readonly id: string,
    private readonly settings: WorkersAISettings = {},
  ) {}

  /** Refuses, before a run starts, media the binding cannot take: anything but images, and images on a text-only model. */
  checkMedia(media: MediaInfo[]): void {
    media.forEach((m, i) => {
      const problem = this.mediaProblem(m.kind, m.url !== undefined);
      if (problem) throw new ValidationError(`media[${i}]: ${problem}`, `media.${i}`);
    });
  }

  private mediaProblem(kind: MediaKind, byUrl: boolean): string | null {
    if (kind !== "image") return `Workers AI model ${this.id} takes no ${kind} input (images only, on a vision model)`;
    if (!(this.settings.images ?? VISION_MODELS.has(this.id)))
      return `Workers AI model ${this.id} does not read images; use a vision model such as @cf/meta/llama-4-scout-17b-16e-instruct`;
    if (byUrl) return "Workers AI takes images as bytes, not URLs";
    return null;
  }

  private toMessages(messages: Message[]): Array<Record<string, unknown>> {
    return messages.map((m) => {
      if (m.role === "tool")
        return { role: "tool", content: m.content ?? "", tool_call_id: m.tool_call_id, name: m.tool_name };
      if (m.role === "assistant" && m.tool_calls?.length)
        return { role: "assistant", content: m.content ?? "", tool_calls: m.tool_calls };
      const media = m.role === "user" ? mediaOf(m) : [];
      if (media.length === 0) return { role: m.role, content: m.content ?? "" };
      const images = media.map(({ kind, media: image }) => {
        const problem = this.mediaProblem(kind, typeof image.content !== "string");
        if (problem) throw new ValidationError(problem, "media");
        return {
          type: "image_url",
          image_url: { url: `data:${image.mime_type ?? "image/jpeg"};base64,${image.content}` },
        };
      });
      return { role: "user", content: [...(m.content ? [{ type: "text", text: m.content }] : []), ...images] };
    });
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelChunk> {
    const inputs: Record<string, unknown> = { messages: this.toMessages(request.messages) };
    if (request.tools?.length && request.toolChoice !== "none") {
      inputs.tools = request.tools.map((t) => ({
        type: "function",
        function: { name: t.name, description: t.description ?? "", parameters: t.parameters },
      }));
    }
    if (request.responseFormat)
      inputs.response_format = { type: "json_schema", json_schema: request.responseFormat.schema };
    if (this.settings.temperature !== undefined) inputs.temperature = this.settings.temperature;
    if (this.settings.maxOutputTokens !== undefined) inputs.max_tokens = this.settings.maxOutputTokens;
    let result: WorkersAIResult;
    for (let attempt = 0; ; attempt++) {
      try {
        result = ((await this.binding.run(this.id, inputs, request.signal ? { signal: request.signal } : undefined)) ??
          {}) as WorkersAIResult;
        break;
      } catch (error) {
        if (request.signal?.aborted) throw request.signal.reason ?? error;
        const failure = ModelProviderError.from(error, this.provider);
        if (!failure.retryable || attempt >= (this.settings.maxRetries ?? 2)) throw failure;
        await new Promise((r) =>
          setTimeout(r, failure.retryAfterMs ?? Math.min(8000, 250 * 2 ** attempt) * (0.5 + Math.random() / 2)),
        );
      }
    }
    const text =
      typeof result.response === "string"
        ? result.response
        : result.response === undefined || result.response === null
          ? ""
          : JSON.stringify(result.response);
    if (text) yield { type: "text", delta: text };
    const calls = result.tool_calls ?? [];
    for (const [i, call] of calls.entries()) {
      const name = call.function?.name ?? call.name ?? "";
      const args = call.function?.arguments ?? call.arguments ?? {};
      yield {
        type: "tool_call",
        id: call.id ?? `call_${i}`,
        name,
        arguments: typeof args === "string" ? args : JSON.stringify(args),
      };
    }
    const usage = emptyUsage();
    usage.input_tokens = result.usage?.prompt_tokens ?? 0;
    usage.output_tokens = result.usage?.completion_tokens ?? 0;
    usage.total_tokens = result.usage?.total_tokens ?? usage.input_tokens + usage.output_tokens;
    yield { type: "finish", reason: calls.length ? "tool_calls" : "stop", usage };
  }
}
