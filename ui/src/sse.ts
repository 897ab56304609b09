/** One server-sent event as the AgentOS frames it: `id: <position>`, `event: <name>`, `data: <JSON>`. */
export interface SseFrame {
  id?: number;
  event: string;
  data: Record<string, unknown>;
}

/** Parses one block (the lines between blank lines); comments (`: ping`) and blocks without data give nothing. */
function frameOf(block: string): SseFrame | undefined {
  let id: number | undefined;
  let event = "message";
  const data: string[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "id" && /^-?\d+$/.test(value)) id = Number(value);
    else if (field === "event") event = value;
    else if (field === "data") data.push(value);
  }
  if (data.length === 0) return undefined;
  try {
    const parsed = JSON.parse(data.join("\n")) as unknown;
    const record = parsed && typeof parsed === "object" ? (parsed as Record<string, unknown>) : { value: parsed };
    return { ...(id !== undefined && { id }), event, data: record };
  } catch {
    return { ...(id !== undefined && { id }), event, data: { content: data.join("\n") } };
  }
}

/** The frames of a `text/event-stream` body as they arrive; ends when the body does (or throws when it breaks). */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseFrame> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      const blocks = buffer.split(/\r?\n\r?\n/);
      buffer = blocks.pop() ?? "";
      for (const block of blocks) {
        const frame = frameOf(block);
        if (frame) yield frame;
      }
    }
  } finally {
    reader.releaseLock();
  }
}
