import { DEFAULT_MEDIA_LIMITS } from "../../agent/media.js";
import type { MediaRecord } from "../../models/message.js";
import { ToolResult, type ToolMedia } from "../tool-result.js";

/** One block of an MCP tool result's `content` (text, image, audio, resource, resource_link). */
interface ContentBlock {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  resource?: { uri: string; mimeType?: string; text?: string; blob?: string };
}

/** An MCP `tools/call` result, the fields read here. */
export interface McpCallResult {
  content?: ContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
}

const kindOf = (mime: string): keyof ToolMedia =>
  mime.startsWith("image/")
    ? "images"
    : mime.startsWith("audio/")
      ? "audio"
      : mime.startsWith("video/")
        ? "videos"
        : "files";

const record = (mimeType: string, base64: string, extra: Partial<MediaRecord> = {}): MediaRecord => ({
  id: crypto.randomUUID(),
  mime_type: mimeType,
  format: mimeType.split("/")[1]?.split(/[;+]/)[0],
  content: base64,
  ...extra,
});

/**
 * An MCP tool's result as our tool's answer, as agno maps it: text blocks joined, images (and
 * audio, and binary embedded resources) become media of the run with a line saying so, a text
 * resource is shown with its uri, structured content answers when there is no text. An error
 * result throws, so the model reads it as the call's error.
 */
export function toolResultOf(
  toolName: string,
  result: McpCallResult,
  limits: { maxItemBytes: number; maxItems: number } = DEFAULT_MEDIA_LIMITS,
): ToolResult {
  const lines: string[] = [];
  const media: ToolMedia = {};
  let items = 0;
  // A server's media are bounded as a run's own are: one oversized item must not swell the stored run.
  const add = (item: MediaRecord, mime: string, what: string) => {
    const bytes = Math.floor(((item.content as string).length * 3) / 4);
    if (bytes > limits.maxItemBytes || items >= limits.maxItems) {
      lines.push(`[${what} of about ${bytes} bytes left out: over the media limits]`);
      return;
    }
    items++;
    (media[kindOf(mime)] ??= []).push(item);
    lines.push(`${what} has been generated and added to the response.`);
  };
  for (const block of result.content ?? []) {
    switch (block.type) {
      case "text": {
        const custom = customImage(block.text ?? "");
        if (custom) add(record(custom.mimeType, custom.data), custom.mimeType, "Image");
        else lines.push(block.text ?? "");
        break;
      }
      case "image":
      case "audio":
        if (block.data && block.mimeType)
          add(record(block.mimeType, block.data), block.mimeType, block.type === "image" ? "Image" : "Audio");
        break;
      case "resource": {
        const r = block.resource;
        if (r?.blob && r.mimeType) add(record(r.mimeType, r.blob, { url: r.uri }), r.mimeType, `Resource ${r.uri}`);
        else if (r) lines.push(`[Embedded resource ${r.uri}${r.mimeType ? ` (${r.mimeType})` : ""}]\n${r.text ?? ""}`);
        break;
      }
      case "resource_link":
        lines.push(`[Resource link: ${block.uri ?? ""}${block.name ? ` (${block.name})` : ""}]`);
        break;
      default:
        lines.push(`[Unsupported content type: ${block.type}]`);
    }
  }
  let content = lines.join("\n").trim();
  if (!content && result.structuredContent !== undefined) content = JSON.stringify(result.structuredContent);
  if (result.isError) throw new Error(`MCP tool '${toolName}' answered with an error: ${content || "(no details)"}`);
  return new ToolResult({ content, ...media });
}

/** agno also reads an image sent as JSON text: `{"type": "image", "data": <base64>, "mimeType": …}`. */
function customImage(text: string): { data: string; mimeType: string } | undefined {
  if (!text.startsWith("{") || !text.includes('"image"')) return undefined;
  try {
    const v = JSON.parse(text) as { type?: unknown; data?: unknown; mimeType?: unknown };
    if (v.type === "image" && typeof v.data === "string" && v.data)
      return { data: v.data, mimeType: typeof v.mimeType === "string" ? v.mimeType : "image/png" };
  } catch {
    // plain text after all
  }
  return undefined;
}
