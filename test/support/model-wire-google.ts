import { nextId, pieces, type Reply, type WireProtocol } from "./model-wire.js";

/** Prefix of the tool call ids toReply generates; never sent. */
const GENERATED_ID = "generated-by-script-";

/**
 * Google Gemini `generateContent` (`POST /v1/models/<model>:generateContent`, and
 * `:streamGenerateContent?alt=sse` for a stream), shaped as the Generative Language API sends it
 * and as @ai-sdk/google's response and chunk schemas parse it (google-generative-ai-api.ts there).
 *
 * Unlike the other two protocols, whether an answer streams is said by the path, not the body.
 * Each streamed event is a whole `GenerateContentResponse` holding one piece of the answer; the
 * last one also carries the finish reason and the usage.
 */
export const googleGenerateContent: WireProtocol = {
  // Gemini sends no ids for function calls (the SDK makes its own): generated ids are left out,
  // scripted ones are sent as `functionCall.id`.
  toolIdPrefix: GENERATED_ID,

  streams: (path) => path.endsWith(":streamGenerateContent"),

  events(reply) {
    const head = { responseId: responseId() };
    const partsPerEvent: object[][] = [
      ...pieces(reply.reasoning, reply.chunkSize).map((text) => [{ text, thought: true }]),
      ...pieces(reply.text, reply.chunkSize).map((text) => [{ text }]),
    ];
    // Gemini sends a turn's function calls whole, together, in one event.
    if (reply.toolCalls.length > 0) partsPerEvent.push(functionCalls(reply));
    if (partsPerEvent.length === 0) partsPerEvent.push([{ text: "" }]);
    return partsPerEvent.map((parts, i) => {
      const last = i === partsPerEvent.length - 1;
      const candidate = {
        content: { parts, role: "model" },
        ...(last && { finishReason: FINISH_REASONS[reply.finish] }),
        index: 0,
      };
      return `data: ${JSON.stringify({ candidates: [candidate], ...(last && { usageMetadata: usage(reply) }), ...head })}\r\n\r\n`;
    });
  },

  json(reply) {
    const parts: object[] = [];
    if (reply.reasoning) parts.push({ text: reply.reasoning, thought: true });
    if (reply.text || reply.toolCalls.length === 0) parts.push({ text: reply.text });
    parts.push(...functionCalls(reply));
    return {
      candidates: [{ content: { parts, role: "model" }, finishReason: FINISH_REASONS[reply.finish], index: 0 }],
      usageMetadata: usage(reply),
      responseId: responseId(),
    };
  },

  /** Google's error shape; `code` (OpenAI's `error.code` elsewhere) overrides the status name, e.g. `FAILED_PRECONDITION`. */
  errorBody(status, message, code) {
    return {
      error: {
        code: status,
        message,
        status: code ?? STATUS_NAMES[status] ?? (status >= 500 ? "INTERNAL" : "INVALID_ARGUMENT"),
      },
    };
  },
};

function functionCalls(reply: Reply): object[] {
  return reply.toolCalls.map((call) => ({
    functionCall: {
      ...(!call.id.startsWith(GENERATED_ID) && { id: call.id }),
      name: call.name,
      args: parsedOrRaw(call.arguments),
    },
  }));
}

/** Gemini ends tool call turns with STOP too; the SDK tells them apart by the functionCall parts. */
const FINISH_REASONS = { stop: "STOP", tool_calls: "STOP", length: "MAX_TOKENS" } as const;

/** google.rpc.Code names by HTTP status, as the API reports them. */
const STATUS_NAMES: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  409: "ABORTED",
  429: "RESOURCE_EXHAUSTED",
  499: "CANCELLED",
  500: "INTERNAL",
  501: "NOT_IMPLEMENTED",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

/**
 * Gemini's `promptTokenCount` includes cached tokens (reported again as `cachedContentTokenCount`)
 * and `candidatesTokenCount` excludes thinking (`thoughtsTokenCount`), so the neutral
 * `outputTokens` is split. The optional counts are left out when zero, as the API does.
 */
function usage({ usage: u }: Reply) {
  return {
    promptTokenCount: u.inputTokens,
    candidatesTokenCount: u.outputTokens - u.reasoningTokens,
    totalTokenCount: u.inputTokens + u.outputTokens,
    ...(u.reasoningTokens > 0 && { thoughtsTokenCount: u.reasoningTokens }),
    ...(u.cachedTokens > 0 && { cachedContentTokenCount: u.cachedTokens }),
  };
}

const responseId = () => `resp-${nextId()}`;

/** Gemini's `args` is an object; a malformed scripted string goes out as the bare string (the SDK streams it verbatim). */
function parsedOrRaw(args: string): unknown {
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}
