import { nextId, pieces, type Reply, type WireProtocol } from "./model-wire.js";

/**
 * OpenAI's Responses API (`POST /v1/responses`), as the API sends it (every event numbered, the
 * lifecycle events @ai-sdk/openai skips included) and as that package's response and chunk
 * schemas parse it. Ramp Router and xAI serve this same wire.
 */
export const openaiResponses: WireProtocol = {
  toolIdPrefix: "call_",

  events(reply, request) {
    let seq = 0;
    const out: string[] = [];
    const emit = (type: string, data: object) => out.push(sse({ type, sequence_number: seq++, ...data }));
    const head = responseHead(request);
    emit("response.created", { response: { ...head, status: "in_progress", output: [], usage: null } });
    emit("response.in_progress", { response: { ...head, status: "in_progress", output: [], usage: null } });
    const output = outputItems(reply);
    output.forEach((item, output_index) => {
      if (item.type === "message") {
        const text = (item.content as { text: string }[])[0]!.text;
        emit("response.output_item.added", {
          output_index,
          item: { ...item, status: "in_progress", content: [] },
        });
        const part = { type: "output_text", annotations: [], logprobs: [], text: "" };
        emit("response.content_part.added", { item_id: item.id, output_index, content_index: 0, part });
        for (const delta of pieces(text, reply.chunkSize))
          emit("response.output_text.delta", { item_id: item.id, output_index, content_index: 0, delta, logprobs: [] });
        emit("response.output_text.done", { item_id: item.id, output_index, content_index: 0, text, logprobs: [] });
        emit("response.content_part.done", {
          item_id: item.id,
          output_index,
          content_index: 0,
          part: { ...part, text },
        });
      } else {
        const args = item.arguments as string;
        emit("response.output_item.added", { output_index, item: { ...item, status: "in_progress", arguments: "" } });
        for (const delta of pieces(args, reply.chunkSize))
          emit("response.function_call_arguments.delta", { item_id: item.id, output_index, delta });
        emit("response.function_call_arguments.done", { item_id: item.id, output_index, arguments: args });
      }
      emit("response.output_item.done", { output_index, item });
    });
    const truncated = reply.finish === "length";
    emit(truncated ? "response.incomplete" : "response.completed", {
      response: {
        ...head,
        status: truncated ? "incomplete" : "completed",
        incomplete_details: truncated ? { reason: "max_output_tokens" } : null,
        output,
        usage: usage(reply),
      },
    });
    return out;
  },

  json(reply, request) {
    const truncated = reply.finish === "length";
    return {
      ...responseHead(request),
      status: truncated ? "incomplete" : "completed",
      incomplete_details: truncated ? { reason: "max_output_tokens" } : null,
      output: outputItems(reply),
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

function responseHead(request: Record<string, unknown>) {
  return {
    id: `resp_${nextId()}`,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    // Router answers a candidate list with the model that served it
    model: typeof request.model === "string" ? request.model : ((request.models as string[] | undefined)?.[0] ?? ""),
    error: null,
    incomplete_details: null,
    service_tier: "default",
  };
}

function outputItems(reply: Reply): Record<string, unknown>[] {
  const items: Record<string, unknown>[] = [];
  if (reply.text)
    items.push({
      id: `msg_${nextId()}`,
      type: "message",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", annotations: [], logprobs: [], text: reply.text }],
    });
  for (const call of reply.toolCalls)
    items.push({
      id: `fc_${nextId()}`,
      type: "function_call",
      status: "completed",
      call_id: call.id,
      name: call.name,
      arguments: call.arguments,
    });
  return items;
}

function usage({ usage: u }: Reply) {
  return {
    input_tokens: u.inputTokens,
    input_tokens_details: { cached_tokens: u.cachedTokens },
    output_tokens: u.outputTokens,
    output_tokens_details: { reasoning_tokens: u.reasoningTokens },
    total_tokens: u.inputTokens + u.outputTokens,
  };
}

const sse = (data: { type: string } & Record<string, unknown>) =>
  `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
