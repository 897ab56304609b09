import { nextId, pieces, type Reply, type WireProtocol } from "./model-wire.js";

/**
 * Anthropic Messages (`POST /v1/messages`), shaped as the API sends it and as @ai-sdk/anthropic's
 * message and chunk schemas parse it (anthropic-messages-api.ts there).
 */
export const anthropicMessages: WireProtocol = {
  toolIdPrefix: "toolu_",

  events(reply, request) {
    const out: string[] = [];
    const event = (type: string, data: object = {}) =>
      out.push(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    let index = 0;
    const block = (content_block: object, deltas: object[]) => {
      event("content_block_start", { index, content_block });
      for (const delta of deltas) event("content_block_delta", { index, delta });
      event("content_block_stop", { index });
      index++;
    };
    // Input token counts are known up front, so the API sends them in message_start.
    const { output_tokens, output_tokens_details, ...inputUsage } = usage(reply);
    event("message_start", {
      message: {
        id: `msg_${nextId()}`,
        type: "message",
        role: "assistant",
        model: request.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...inputUsage, output_tokens: 1 },
      },
    });
    event("ping");
    if (reply.reasoning) {
      const thinking = pieces(reply.reasoning, reply.chunkSize).map((t) => ({ type: "thinking_delta", thinking: t }));
      block({ type: "thinking", thinking: "" }, [...thinking, { type: "signature_delta", signature: SIGNATURE }]);
    }
    if (reply.text) {
      block(
        { type: "text", text: "" },
        pieces(reply.text, reply.chunkSize).map((t) => ({ type: "text_delta", text: t })),
      );
    }
    for (const call of reply.toolCalls) {
      // The API starts a tool_use block with empty input and an empty partial_json, then streams the JSON.
      const json = ["", ...pieces(call.arguments, reply.chunkSize)].map((p) => ({
        type: "input_json_delta",
        partial_json: p,
      }));
      block({ type: "tool_use", id: call.id, name: call.name, input: {} }, json);
    }
    event("message_delta", {
      delta: { stop_reason: STOP_REASONS[reply.finish], stop_sequence: null },
      usage: { output_tokens, output_tokens_details },
    });
    event("message_stop");
    return out;
  },

  json(reply, request) {
    const content: object[] = [];
    if (reply.reasoning) content.push({ type: "thinking", thinking: reply.reasoning, signature: SIGNATURE });
    if (reply.text || reply.toolCalls.length === 0) content.push({ type: "text", text: reply.text });
    for (const call of reply.toolCalls)
      content.push({ type: "tool_use", id: call.id, name: call.name, input: parsedOrRaw(call.arguments) });
    return {
      id: `msg_${nextId()}`,
      type: "message",
      role: "assistant",
      model: request.model,
      content,
      stop_reason: STOP_REASONS[reply.finish],
      stop_sequence: null,
      usage: usage(reply),
    };
  },

  errorBody(status, message) {
    return {
      type: "error",
      error: { type: ERROR_TYPES[status] ?? (status >= 500 ? "api_error" : "invalid_request_error"), message },
    };
  },
};

const STOP_REASONS = { stop: "end_turn", tool_calls: "tool_use", length: "max_tokens" } as const;

/** Anthropic's documented error types by status. */
const ERROR_TYPES: Record<number, string> = {
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  529: "overloaded_error",
};

/** Thinking blocks carry a signature the client must send back; any opaque string does here. */
const SIGNATURE = "scripted-signature";

/**
 * Anthropic's `input_tokens` excludes cached tokens (the SDK adds them back), so the neutral
 * `inputTokens` is split. `output_tokens_details` is left out unless there are thinking tokens,
 * so a plain answer's usage looks like the API's usual one.
 */
function usage({ usage: u }: Reply) {
  return {
    input_tokens: u.inputTokens - u.cachedTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: u.cachedTokens,
    output_tokens: u.outputTokens,
    ...(u.reasoningTokens > 0 && { output_tokens_details: { thinking_tokens: u.reasoningTokens } }),
  };
}

/** The non-streamed API only ever returns an object; a malformed scripted string is passed as the bare string. */
function parsedOrRaw(args: string): unknown {
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}
