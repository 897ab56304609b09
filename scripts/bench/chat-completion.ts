/**
 * One Chat Completions request made with plain `fetch`, as a hand-written client would make it:
 * the floors of the agent and team figures (what the model server and HTTP cost with no
 * framework at all). `sse` streams and reads the events; otherwise one JSON answer.
 */
export interface ChatMessage {
  content: string | null;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
}

export async function chatCompletion(
  baseURL: string,
  body: { model: string; apiKey: string; messages: unknown[]; tools?: unknown[] },
  sse: boolean,
): Promise<ChatMessage> {
  const { apiKey, ...request } = body;
  const res = await fetch(`${baseURL}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${apiKey}` },
    body: JSON.stringify({ ...request, ...(sse && { stream: true }) }),
  });
  if (!res.ok) throw new Error(`model server: ${res.status} ${await res.text()}`);
  if (!sse) return ((await res.json()) as { choices: { message: ChatMessage }[] }).choices[0]!.message;
  let content = "";
  const calls: { id: string; function: { name: string; arguments: string } }[] = [];
  for (const line of (await res.text()).split("\n")) {
    if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
    const delta = (
      JSON.parse(line.slice(6)) as {
        choices: {
          delta: {
            content?: string;
            tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[];
          };
        }[];
      }
    ).choices[0]?.delta;
    content += delta?.content ?? "";
    for (const c of delta?.tool_calls ?? []) {
      const call = (calls[c.index] ??= { id: "", function: { name: "", arguments: "" } });
      call.id ||= c.id ?? "";
      call.function.name += c.function?.name ?? "";
      call.function.arguments += c.function?.arguments ?? "";
    }
  }
  return { content, ...(calls.length && { tool_calls: calls }) };
}
