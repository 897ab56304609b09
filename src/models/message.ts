/**
 * Messages in agno's dict shape (snake_case), the form they are stored in a run's `messages`
 * and sent over HTTP. Provider formats are produced from these at the edge of each adapter.
 */
export type Role = "system" | "user" | "assistant" | "tool";

export interface ToolCallRecord {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export interface Message {
  role: Role;
  content?: string | null;
  /** assistant messages that call tools */
  tool_calls?: ToolCallRecord[];
  /** tool messages: which call they answer */
  tool_call_id?: string;
  tool_name?: string;
  tool_args?: Record<string, unknown>;
  tool_call_error?: boolean;
  reasoning_content?: string;
  /** true when the message was sent as history, not produced in this run */
  from_history?: boolean;
  created_at: number;
  [key: string]: unknown;
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

export function message(role: Role, content: string | null, extra: Partial<Message> = {}): Message {
  return { role, content, ...extra, created_at: extra.created_at ?? nowSeconds() };
}
