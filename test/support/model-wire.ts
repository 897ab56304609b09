import type { DropTurn, TextTurn, ToolCallsTurn, Usage } from "./model-script.js";

/** An answering turn reduced to what the wire encoders need, whatever the protocol. */
export interface Reply {
  reasoning: string;
  text: string;
  toolCalls: { id: string; name: string; arguments: string }[];
  finish: "stop" | "tool_calls" | "length";
  usage: Required<Usage>;
  chunkSize: number;
}

/** One provider API's wire format, as its official client parses it. */
export interface WireProtocol {
  /** prefix of generated tool call ids, as the real API spells them */
  toolIdPrefix: string;
  /** whether the request asks for a streamed answer; default: the body says `stream: true` */
  streams?(path: string, request: Record<string, unknown>): boolean;
  /** the SSE events of a streamed answer, each a complete block ending in a blank line */
  events(reply: Reply, request: Record<string, unknown>): string[];
  /** the body of a non-streamed answer */
  json(reply: Reply, request: Record<string, unknown>): unknown;
  errorBody(status: number, message: string, code?: string): unknown;
}

let lastId = 0;
/** Unique for the server's life, so generated ids never repeat within one conversation. */
export const nextId = () => ++lastId;

export function toReply(turn: TextTurn | ToolCallsTurn | DropTurn, toolIdPrefix: string): Reply {
  const toolCalls = "toolCalls" in turn ? turn.toolCalls : [];
  return {
    reasoning: ("reasoning" in turn && turn.reasoning) || "",
    text: turn.text ?? "",
    toolCalls: toolCalls.map((call) => ({
      id: call.id ?? `${toolIdPrefix}${nextId()}`,
      name: call.name,
      arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
    })),
    finish: toolCalls.length > 0 ? "tool_calls" : "truncated" in turn && turn.truncated ? "length" : "stop",
    usage: {
      inputTokens: 10,
      outputTokens: 5,
      reasoningTokens: 0,
      cachedTokens: 0,
      ...("usage" in turn ? turn.usage : {}),
    },
    chunkSize: turn.chunkSize ?? 4,
  };
}

/** `s` cut into pieces of `size` characters (none for the empty string). */
export function pieces(s: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}
