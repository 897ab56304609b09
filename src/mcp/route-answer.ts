import { McpToolError } from "./mcp-tool-error.js";

/**
 * A route's JSON answer; a refusal (4xx, 5xx) becomes a McpToolError carrying the route's own
 * `detail`, so a token without the scope, a foreign session or a bad argument reads over MCP as
 * it reads over HTTP.
 */
export async function routeJson(res: Response): Promise<unknown> {
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  if (!res.ok) throw refusalOf(res.status, body);
  return body;
}

/** The McpToolError for a route's refusal with `body` (agno's `{detail, error_id}`). */
export function refusalOf(status: number, body: unknown): McpToolError {
  const { detail, error_id } = (body ?? {}) as { detail?: unknown; error_id?: unknown };
  const message = typeof detail === "string" ? detail : `request failed with status ${status}`;
  return new McpToolError(message, status, typeof error_id === "string" ? error_id : undefined);
}
