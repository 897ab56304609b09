import type { MediaKind, Message } from "./message.js";

/** A tool as a model sees it: name, description and a JSON Schema of its arguments. */
export interface ToolDefinition {
  name: string;
  description?: string;
  parameters: Record<string, unknown>;
}

export interface TokenUsage {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  reasoning_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
}

export type FinishReason = "stop" | "length" | "tool_calls" | "content_filter" | "error" | "other";

export interface ModelRequest {
  messages: Message[];
  tools?: ToolDefinition[];
  toolChoice?: "auto" | "none" | "required" | { name: string };
  /** structured output: the reply must be JSON matching `schema` */
  responseFormat?: { type: "json"; schema: Record<string, unknown>; name?: string };
  signal?: AbortSignal;
  /**
   * false: nobody watches this answer arrive (a run that is not streamed), so the model may
   * make one plain call and yield its chunks at once; default true, streamed as it comes
   */
  stream?: boolean;
  /** the run's user, for providers whose credential is per user (xAI's SuperGrok sign-in) */
  userId?: string;
}

export type ModelChunk =
  | { type: "text"; delta: string }
  | { type: "reasoning"; delta: string }
  | { type: "tool_call"; id: string; name: string; arguments: string }
  | { type: "finish"; reason: FinishReason; usage: TokenUsage; cost?: number };

/** What a model may check of a run's media before the run starts. */
export interface MediaInfo {
  kind: MediaKind;
  mimeType: string;
  url?: string;
}

/**
 * The model port. The run loop talks only to this, so providers, retries and usage accounting
 * live in adapters and the loop keeps full control of tool execution (HITL, offload, CodeMode).
 */
export interface Model {
  readonly id: string;
  readonly provider: string;
  stream(request: ModelRequest): AsyncIterable<ModelChunk>;
  /**
   * Optional: throws a ValidationError for media this model cannot take, so that such a run is
   * refused before anything is stored. Without it media go to the provider, which may refuse them.
   */
  checkMedia?(media: MediaInfo[]): void;
}

export const emptyUsage = (): TokenUsage => ({
  input_tokens: 0,
  output_tokens: 0,
  total_tokens: 0,
  reasoning_tokens: 0,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
});
