import type { z } from "zod";
import type { Env } from "../../../src/index.js";
import { agnoSourceOf } from "../../../src/os/wire/agno-object.js";
import { agnoErrorSchema } from "../../../src/os/wire/errors.js";
import { auth, send } from "../worker-client.js";
import { contractFor, routeKey } from "./contracts.js";

/**
 * Routes whose successful answer is not one of agno's response models, with the reason. Every
 * other route's 2xx JSON answer must be declared with a schema built by `agnoObject`.
 */
export const NOT_AGNO_MODELS: Record<string, string> = {
  "GET /openapi.json": "the OpenAPI document itself, which FastAPI also serves without a model",
  "GET /databases":
    "agno has no route that reads a database's schema state: agno-edge's own DatabaseStatus list (src/os/wire/databases.ts, beyond-agno.ts)",
  "GET /audit": "agno has no audit trail: agno-edge's own AuditLogEntry page (src/os/wire/audit.ts, beyond-agno.ts)",
  "GET /docs": "an HTML page",
  "GET /memory_topics": "agno answers a bare list of topic strings (`response_model=List[str]`)",
  "GET /ws": "a WebSocket upgrade (101): the socket's messages are agno's run events",
  "GET /workflows/ws": "a WebSocket upgrade (101): agno's workflow socket frames and workflow events",
  "GET /sessions/{session_id}/media/{storage_key}": "the media bytes, or a redirect to them",
  "POST /agents/{agent_id}/runs/{run_id}/resume":
    "an SSE stream of agno's run events (agno declares only text/event-stream for it)",
  "POST /teams/{team_id}/runs/{run_id}/resume": "an SSE stream of agno's team run events",
  "POST /workflows/{workflow_id}/runs/{run_id}/resume": "an SSE stream of agno's workflow events",
  "DELETE /knowledge/content": 'the JSON string "success", which agno\'s delete_all_content returns without a model',
  "POST /slack/events": "agno's Slack router answers plain dicts (the URL check's challenge, a status)",
  "POST /slack/interactions": "agno's Slack router answers a plain dict",
  "POST /telegram/webhook": "agno's Telegram router answers a plain dict ({status})",
  "GET /telegram/status": "agno's Telegram router answers a plain dict ({status})",
  "GET /whatsapp/webhook": "Meta's verification challenge, as text (agno answers it as PlainTextResponse)",
  "POST /whatsapp/webhook": "agno's WhatsApp router answers a plain dict",
  "POST /models/xai/login":
    "SuperGrok sign-in over HTTP is agno-edge's (agno signs in from Python: XAITokenManager.login); listed in beyond-agno.ts",
  "POST /models/xai/login/poll": "SuperGrok sign-in over HTTP is agno-edge's; listed in beyond-agno.ts",
  "GET /models/xai/login": "SuperGrok sign-in over HTTP is agno-edge's; listed in beyond-agno.ts",
  "DELETE /models/xai/login": "SuperGrok sign-in over HTTP is agno-edge's (204, no body)",
  "POST /mcp": "MCP's JSON-RPC messages (agno mounts fastmcp's app there, outside its response models)",
  "GET /mcp": "a stateless MCP server's 405 (fastmcp's transport answers it likewise)",
  "DELETE /mcp": "a stateless MCP server's 405",
  "POST /agui": "AG-UI's events as SSE (agno's AG-UI router streams them without a model)",
  "GET /status": "agno's AG-UI router answers a plain dict ({status})",
  "GET /a2a/agents/{agent_id}/.well-known/agent-card.json":
    "A2A's AgentCard (a2a-sdk's model, which agno's A2A router answers)",
  "POST /a2a/agents/{agent_id}/v1/message:send":
    "a JSON-RPC answer holding A2A's Task (a2a-sdk's SendMessageSuccessResponse, as agno's A2A router answers)",
  "POST /a2a/agents/{agent_id}/v1/message:stream":
    "a JSON-RPC answer holding A2A's Task (a2a-sdk's SendMessageSuccessResponse, as agno's A2A router answers)",
  "POST /a2a/agents/{agent_id}/v1/tasks:get":
    "a JSON-RPC answer holding A2A's Task (a2a-sdk's SendMessageSuccessResponse, as agno's A2A router answers)",
  "POST /a2a/agents/{agent_id}/v1/tasks:cancel":
    "a JSON-RPC answer holding A2A's Task (a2a-sdk's SendMessageSuccessResponse, as agno's A2A router answers)",
  "GET /a2a/teams/{team_id}/.well-known/agent-card.json":
    "A2A's AgentCard (a2a-sdk's model, which agno's A2A router answers)",
  "POST /a2a/teams/{team_id}/v1/message:send":
    "a JSON-RPC answer holding A2A's Task (a2a-sdk's SendMessageSuccessResponse, as agno's A2A router answers)",
  "POST /a2a/teams/{team_id}/v1/message:stream":
    "a JSON-RPC answer holding A2A's Task (a2a-sdk's SendMessageSuccessResponse, as agno's A2A router answers)",
  "POST /a2a/teams/{team_id}/v1/tasks:get":
    "a JSON-RPC answer holding A2A's Task (a2a-sdk's SendMessageSuccessResponse, as agno's A2A router answers)",
  "POST /a2a/teams/{team_id}/v1/tasks:cancel":
    "a JSON-RPC answer holding A2A's Task (a2a-sdk's SendMessageSuccessResponse, as agno's A2A router answers)",
  "GET /a2a/workflows/{workflow_id}/.well-known/agent-card.json":
    "A2A's AgentCard (a2a-sdk's model, which agno's A2A router answers)",
  "POST /a2a/workflows/{workflow_id}/v1/message:send":
    "a JSON-RPC answer holding A2A's Task (a2a-sdk's SendMessageSuccessResponse, as agno's A2A router answers)",
  "POST /a2a/workflows/{workflow_id}/v1/message:stream":
    "a JSON-RPC answer holding A2A's Task (a2a-sdk's SendMessageSuccessResponse, as agno's A2A router answers)",
  "POST /a2a/workflows/{workflow_id}/v1/tasks:get":
    "a JSON-RPC answer holding A2A's Task (a2a-sdk's SendMessageSuccessResponse, as agno's A2A router answers)",
  "POST /a2a/workflows/{workflow_id}/v1/tasks:cancel":
    "a JSON-RPC answer holding A2A's Task (a2a-sdk's SendMessageSuccessResponse, as agno's A2A router answers)",
};

/** Every route answered so far in this file, by route key, with the statuses seen. */
export const answered = new Map<string, Set<number>>();

export class ConformanceError extends Error {}

/**
 * Checks one answer against its route's contract: the status is one the route declares, an error
 * is agno's error body, a JSON success parses strictly with the declared schema, which must be
 * one of agno's models (or the route is listed in NOT_AGNO_MODELS). Records the route as answered.
 */
export function checkAnswer(method: string, path: string, status: number, contentType: string, text: string) {
  const contract = contractFor(method, path);
  if (!contract) throw new ConformanceError(`${method} ${path}: no route declares this path`);
  const key = routeKey(contract);
  const declared = contract.responses.get(status);
  if (!declared) throw new ConformanceError(`${key} answered ${status}, which its definition does not declare`);
  if (!answered.has(key)) answered.set(key, new Set());
  answered.get(key)!.add(status);
  if (!contentType.includes("application/json")) {
    if (status >= 400) throw new ConformanceError(`${key} answered ${status} without a JSON error body`);
    return undefined;
  }
  const body = text ? (JSON.parse(text) as unknown) : null;
  const schema: z.ZodType | undefined = status >= 400 ? agnoErrorSchema : declared.schema;
  if (!schema) throw new ConformanceError(`${key} answered ${status} with JSON but declares no schema for it`);
  if (status < 400 && !NOT_AGNO_MODELS[key] && !agnoSourceOf(schema))
    throw new ConformanceError(`${key} ${status} is declared with a schema that is not one of agno's models`);
  const parsed = schema.safeParse(body);
  if (!parsed.success)
    throw new ConformanceError(
      `${key} ${status} does not conform to ${agnoSourceOf(schema) ?? "its schema"}: ${parsed.error.issues
        .slice(0, 5)
        .map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`)
        .join("; ")}`,
    );
  return body;
}

/**
 * Records an answer the checking client cannot send itself (a WebSocket upgrade, opened with
 * worker-client's `upgradeSocket`): its status must be one the route declares, and it carries no
 * JSON body to check.
 */
export function recordAnswer(method: string, path: string, status: number): void {
  const contract = contractFor(method, path);
  if (!contract) throw new ConformanceError(`${method} ${path}: no route declares this path`);
  const key = routeKey(contract);
  if (!contract.responses.has(status))
    throw new ConformanceError(`${key} answered ${status}, which its definition does not declare`);
  if (!answered.has(key)) answered.set(key, new Set());
  answered.get(key)!.add(status);
}

/** `send` through the Worker, with the answer checked against its contract; the JSON body parsed. */
export async function conformingCall(
  path: string,
  init: RequestInit = {},
  overrides: Partial<Env> = {},
  headers: Record<string, string> = auth,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- scenarios read the checked answer's fields freely
): Promise<{ status: number; headers: Headers; body: any; text: string }> {
  const response = await send(path, init, overrides, headers);
  const text = await response.text();
  const body = checkAnswer(
    init.method ?? "GET",
    path,
    response.status,
    response.headers.get("content-type") ?? "",
    text,
  );
  return { status: response.status, headers: response.headers, body, text };
}
