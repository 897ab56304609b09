import { nextId, pieces, type Reply, type WireProtocol } from "./model-wire.js";

/**
 * OpenAI Chat Completions (`POST /v1/chat/completions`), shaped as the API sends it and as
 * @ai-sdk/openai's chat chunk and response schemas parse it (openai-chat-api.ts there).
 */
export const openaiChat: WireProtocol = {
  toolIdPrefix: "call_",

  events(reply, request) {
    const head = { id: `chatcmpl-${nextId()}`, object: "chat.completion.chunk", created: now(), model: request.model };
    const chunk = (delta: object, finish_reason: string | null = null) =>
      sse({ ...head, choices: [{ index: 0, delta, logprobs: null, finish_reason }] });
    // The API names the role in the first delta only.
    let role: object = { role: "assistant" };
    const first = () => {
      const r = role;
      role = {};
      return r;
    };
    const out: string[] = [];
    for (const piece of pieces(reply.reasoning, reply.chunkSize))
      out.push(chunk({ ...first(), reasoning_content: piece }));
    if (reply.text) {
      // As the API does, text opens with an empty content delta (the SDK turns it into an empty text-delta).
      out.push(chunk({ ...first(), content: "", refusal: null }));
      for (const piece of pieces(reply.text, reply.chunkSize)) out.push(chunk({ content: piece }));
    }
    reply.toolCalls.forEach((call, index) => {
      // id, type and name come once, with empty arguments; the arguments follow in fragments.
      const start = { index, id: call.id, type: "function", function: { name: call.name, arguments: "" } };
      out.push(chunk({ ...first(), tool_calls: [start] }));
      for (const piece of pieces(call.arguments, reply.chunkSize))
        out.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    });
    out.push(chunk({}, reply.finish));
    // Usage comes only when asked for, in a last chunk without choices.
    const options = request.stream_options as { include_usage?: boolean } | undefined;
    if (options?.include_usage) out.push(sse({ ...head, choices: [], usage: usage(reply) }));
    out.push("data: [DONE]\n\n");
    return out;
  },

  json(reply, request) {
    const message = {
      role: "assistant",
      content: reply.text || null,
      refusal: null,
      ...(reply.reasoning && { reasoning_content: reply.reasoning }),
      ...(reply.toolCalls.length > 0 && {
        tool_calls: reply.toolCalls.map((c) => ({
          id: c.id,
          type: "function",
          function: { name: c.name, arguments: c.arguments },
        })),
      }),
    };
    return {
      id: `chatcmpl-${nextId()}`,
      object: "chat.completion",
      created: now(),
      model: request.model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: reply.finish }],
      usage: usage(reply),
    };
  },

  errorBody(status, message, code) {
    return {
      error: {
        message,
        type: status >= 500 ? "server_error" : "invalid_request_error",
        param: null,
        code: code ?? null,
      },
    };
  },
};

function usage({ usage: u }: Reply) {
  return {
    prompt_tokens: u.inputTokens,
    completion_tokens: u.outputTokens,
    total_tokens: u.inputTokens + u.outputTokens,
    prompt_tokens_details: { cached_tokens: u.cachedTokens },
    completion_tokens_details: { reasoning_tokens: u.reasoningTokens },
  };
}

const now = () => Math.floor(Date.now() / 1000);
const sse = (data: object) => `data: ${JSON.stringify(data)}\n\n`;
