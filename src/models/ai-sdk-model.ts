import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3FilePart,
  LanguageModelV3GenerateResult,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3TextPart,
  LanguageModelV3Usage,
} from "@ai-sdk/provider";
import { mediaOf, type MediaKind, type MediaRecord, type Message } from "./message.js";
import {
  emptyUsage,
  type FinishReason,
  type Model,
  type ModelChunk,
  type ModelRequest,
  type TokenUsage,
} from "./model.js";
import { ModelProviderError } from "./provider-error.js";
import { jsonProblem } from "../json-limits.js";

export interface ModelSettings {
  temperature?: number;
  maxOutputTokens?: number;
  topP?: number;
  stopSequences?: string[];
  /** provider-specific options, passed through as the AI SDK's providerOptions */
  providerOptions?: LanguageModelV3CallOptions["providerOptions"];
  /** retries of retryable failures (rate limit, server, network) before any output; default 2 */
  maxRetries?: number;
  /** price per million tokens, to report a run's cost */
  pricing?: { inputPerMTok: number; outputPerMTok: number; cachedInputPerMTok?: number };
  /**
   * Headers for one call, resolved just before it (a per-user bearer token); they win over the
   * provider's own, `Authorization` included. A throw fails the call without retries.
   */
  headersFor?: (call: { userId?: string }) => Promise<Record<string, string> | undefined>;
}

/** Builds the provider prompt from agno-shaped messages. */
export function toPrompt(messages: Message[]): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Prompt = [];
  const toolNames = new Map<string, string>();
  for (const m of messages) {
    const text = m.content ?? "";
    if (m.role === "system") prompt.push({ role: "system", content: text });
    else if (m.role === "user") prompt.push({ role: "user", content: userContent(text, m) });
    else if (m.role === "assistant") {
      const content: Extract<LanguageModelV3Prompt[number], { role: "assistant" }>["content"] = [];
      if (text) content.push({ type: "text", text });
      for (const call of m.tool_calls ?? []) {
        toolNames.set(call.id, call.function.name);
        content.push({
          type: "tool-call",
          toolCallId: call.id,
          toolName: call.function.name,
          input: parseArgs(call.function.arguments),
        });
      }
      prompt.push({ role: "assistant", content });
    } else {
      const toolCallId = m.tool_call_id ?? "";
      prompt.push({
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId,
            toolName: m.tool_name ?? toolNames.get(toolCallId) ?? "tool",
            output: m.tool_call_error ? { type: "error-text", value: text } : { type: "text", value: text },
          },
        ],
      });
    }
  }
  return prompt;
}

/** The text, then each medium as a file part (an empty text is left out when media come with it). */
function userContent(text: string, m: Message): Array<LanguageModelV3TextPart | LanguageModelV3FilePart> {
  const files = mediaOf(m).flatMap(({ kind, media }) => {
    const part = filePart(kind, media);
    return part ? [part] : [];
  });
  return text || files.length === 0 ? [{ type: "text", text }, ...files] : files;
}

/**
 * A stored medium as the AI SDK's file part: images with their image/* type, everything else
 * with its own; the bytes as base64 (text files, stored as their text, as bytes), or the URL for
 * the provider to fetch. An item with neither (a row written elsewhere holding only a local
 * path) cannot be sent and is left out.
 */
function filePart(kind: MediaKind, media: MediaRecord): LanguageModelV3FilePart | null {
  const mediaType = media.mime_type ?? (kind === "image" ? "image/*" : "application/octet-stream");
  const isText = kind === "file" && mediaType.startsWith("text/");
  const data =
    typeof media.content === "string"
      ? isText
        ? new TextEncoder().encode(media.content)
        : media.content
      : typeof media.url === "string"
        ? new URL(media.url)
        : null;
  if (data === null) return null;
  const filename =
    kind === "file" ? (media.filename ?? (typeof media.name === "string" ? media.name : undefined)) : undefined;
  return { type: "file", mediaType, data, ...(filename ? { filename } : {}) };
}

function parseArgs(args: string): unknown {
  try {
    const value: unknown = JSON.parse(args || "{}");
    // Arguments the run refused as too deep or large (a tool error) go back as `{}`: the provider
    // SDK serialises them recursively, and a deep value would overflow the stack.
    return jsonProblem(value) ? {} : value;
  } catch {
    return {};
  }
}

function toUsage(u: LanguageModelV3Usage | undefined): TokenUsage {
  const usage = emptyUsage();
  if (!u) return usage;
  usage.input_tokens = u.inputTokens.total ?? 0;
  usage.output_tokens = u.outputTokens.total ?? 0;
  usage.total_tokens = usage.input_tokens + usage.output_tokens;
  usage.reasoning_tokens = u.outputTokens.reasoning ?? 0;
  usage.cache_read_tokens = u.inputTokens.cacheRead ?? 0;
  usage.cache_write_tokens = u.inputTokens.cacheWrite ?? 0;
  return usage;
}

const FINISH: Record<string, FinishReason> = {
  stop: "stop",
  length: "length",
  "tool-calls": "tool_calls",
  "content-filter": "content_filter",
  error: "error",
  other: "other",
};

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });

/**
 * Our Model port over an AI SDK provider model (the `LanguageModelV3` interface of the ai@6
 * line). It streams, maps usage and finish reasons, retries retryable failures with backoff
 * only while nothing has been emitted (a retry after output would duplicate it), and turns
 * every failure into a classified ModelProviderError.
 */
export class AiSdkModel implements Model {
  readonly id: string;
  readonly provider: string;

  constructor(
    private readonly model: LanguageModelV3,
    private readonly settings: ModelSettings = {},
    provider?: string,
  ) {
    this.id = model.modelId;
    this.provider = provider ?? model.provider.split(".")[0]!;
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelChunk> {
    const options: LanguageModelV3CallOptions = {
      prompt: toPrompt(request.messages),
      temperature: this.settings.temperature,
      maxOutputTokens: this.settings.maxOutputTokens,
      topP: this.settings.topP,
      stopSequences: this.settings.stopSequences,
      providerOptions: this.settings.providerOptions,
      abortSignal: request.signal,
      tools: request.tools?.map((t) => ({
        type: "function" as const,
        name: t.name,
        description: t.description,
        inputSchema: t.parameters,
      })),
      toolChoice:
        request.toolChoice === undefined
          ? undefined
          : typeof request.toolChoice === "string"
            ? { type: request.toolChoice }
            : { type: "tool", toolName: request.toolChoice.name },
      responseFormat: request.responseFormat
        ? { type: "json", schema: request.responseFormat.schema, name: request.responseFormat.name }
        : undefined,
    };
    if (this.settings.headersFor) {
      try {
        options.headers = await this.settings.headersFor({ userId: request.userId });
      } catch (error) {
        throw ModelProviderError.from(error, this.provider);
      }
    }
    const maxRetries = this.settings.maxRetries ?? 2;
    for (let attempt = 0; ; attempt++) {
      let emitted = false;
      try {
        // Nobody watches a non-streamed answer arrive: one plain call costs less than an SSE stream.
        const parts =
          request.stream === false
            ? partsOf(await this.model.doGenerate(options))
            : readParts((await this.model.doStream(options)).stream);
        for await (const chunk of parts) {
          emitted = true;
          yield chunk.type === "finish" ? { ...chunk, cost: this.cost(chunk.usage) } : chunk;
        }
        return;
      } catch (error) {
        if (request.signal?.aborted) throw request.signal.reason ?? error;
        const failure = ModelProviderError.from(error, this.provider);
        if (emitted || !failure.retryable || attempt >= maxRetries) throw failure;
        const backoff = failure.retryAfterMs ?? Math.min(8000, 250 * 2 ** attempt) * (0.5 + Math.random() / 2);
        await sleep(backoff, request.signal);
      }
    }
  }

  private cost(usage: TokenUsage): number | undefined {
    const p = this.settings.pricing;
    if (!p) return undefined;
    const cached = usage.cache_read_tokens;
    const input = (usage.input_tokens - cached) * p.inputPerMTok + cached * (p.cachedInputPerMTok ?? p.inputPerMTok);
    return (input + usage.output_tokens * p.outputPerMTok) / 1_000_000;
  }
}

/** A whole answer's content as the chunks a stream of it would have given. */
function partsOf(result: LanguageModelV3GenerateResult): ModelChunk[] {
  const chunks: ModelChunk[] = [];
  for (const part of result.content) {
    if (part.type === "text" && part.text) chunks.push({ type: "text", delta: part.text });
    else if (part.type === "reasoning" && part.text) chunks.push({ type: "reasoning", delta: part.text });
    else if (part.type === "tool-call")
      chunks.push({ type: "tool_call", id: part.toolCallId, name: part.toolName, arguments: part.input });
  }
  chunks.push({ type: "finish", reason: FINISH[result.finishReason.unified] ?? "other", usage: toUsage(result.usage) });
  return chunks;
}

/** Maps the provider's stream parts to ours; errors inside the stream are thrown. */
async function* readParts(stream: ReadableStream<LanguageModelV3StreamPart>): AsyncIterable<ModelChunk> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      switch (value.type) {
        case "text-delta":
          if (value.delta) yield { type: "text", delta: value.delta };
          break;
        case "reasoning-delta":
          if (value.delta) yield { type: "reasoning", delta: value.delta };
          break;
        case "tool-call":
          yield { type: "tool_call", id: value.toolCallId, name: value.toolName, arguments: value.input };
          break;
        case "finish":
          yield { type: "finish", reason: FINISH[value.finishReason.unified] ?? "other", usage: toUsage(value.usage) };
          break;
        case "error":
          throw value.error;
        default:
          break;
      }
    }
  } finally {
    // Also reached when the consumer stops early (a cancelled run): stop the provider's stream.
    await reader.cancel().catch(() => undefined);
  }
}
