import { z } from "zod";
import { idSchema, jsonObject } from "../../os/route.js";

/*
 * A2A's wire as agno serves it: protocol 0.3 (the `kind`-tagged parts and results of the Python
 * a2a-sdk agno builds on), JSON-RPC 2.0 envelopes. The official JavaScript client speaks it
 * through its v0.3 compatibility layer.
 */

/** The protocol version the agent cards announce. */
export const A2A_PROTOCOL_VERSION = "0.3.0";

/** The JSON-RPC methods of the four routes; a route takes any of them (the card's url receives all). */
export const A2A_METHODS = ["message/send", "message/stream", "tasks/get", "tasks/cancel"] as const;
export type A2AMethod = (typeof A2A_METHODS)[number];

/** The JSON-RPC envelope every POST route takes; `params` is checked per method (400 naming the field). */
export const a2aEnvelope = z
  .object({
    jsonrpc: z.literal("2.0"),
    id: z
      .union([z.string().max(255), z.number().int()])
      .nullable()
      .optional(),
    method: z.enum(A2A_METHODS).optional(),
    params: jsonObject,
  })
  .meta({ id: "A2AJsonRpcRequest" });
export type A2AEnvelope = z.infer<typeof a2aEnvelope>;

const metadata = jsonObject.optional();

const textPart = z.object({ kind: z.literal("text"), text: z.string().max(1_000_000), metadata });
const filePart = z.object({
  kind: z.literal("file"),
  file: z.union([
    z.object({
      uri: z.string().min(1).max(8192),
      mimeType: z.string().max(255).optional(),
      name: z.string().max(255).optional(),
    }),
    z.object({
      bytes: z.string().min(1),
      mimeType: z.string().max(255).optional(),
      name: z.string().max(255).optional(),
    }),
  ]),
  metadata,
});
const dataPart = z.object({ kind: z.literal("data"), data: jsonObject, metadata });
export const a2aPart = z.discriminatedUnion("kind", [textPart, filePart, dataPart]);
export type A2APart = z.infer<typeof a2aPart>;

export const a2aMessage = z.object({
  kind: z.literal("message").optional(),
  messageId: idSchema,
  role: z.enum(["user", "agent"]),
  parts: z.array(a2aPart).min(1).max(64),
  contextId: idSchema.optional(),
  taskId: idSchema.optional(),
  metadata,
  referenceTaskIds: z.array(idSchema).max(64).optional(),
  extensions: z.array(z.string().max(2048)).max(64).optional(),
});
export type A2AMessage = z.infer<typeof a2aMessage>;

/** `message/send` and `message/stream` params (MessageSendParams). */
export const messageSendParams = z.object({
  message: a2aMessage,
  configuration: z
    .object({
      blocking: z.boolean().optional(),
      acceptedOutputModes: z.array(z.string().max(255)).max(64).optional(),
      historyLength: z.number().int().min(0).optional(),
      pushNotificationConfig: jsonObject.optional(),
    })
    .optional(),
  metadata,
});

/** `tasks/get` and `tasks/cancel` params (TaskQueryParams, TaskIdParams); agno also reads `contextId`. */
export const taskParams = z.object({
  id: idSchema,
  contextId: idSchema.optional(),
  historyLength: z.number().int().min(0).optional(),
  metadata,
});

/** A2A 0.3's task states. */
export type TaskState =
  | "submitted"
  | "working"
  | "input-required"
  | "completed"
  | "canceled"
  | "failed"
  | "rejected"
  | "auth-required"
  | "unknown";

export interface A2AOutMessage {
  kind: "message";
  messageId: string;
  role: "user" | "agent";
  parts: A2APart[];
  contextId?: string;
  taskId?: string;
  metadata?: Record<string, unknown>;
}

export interface TaskStatus {
  state: TaskState;
  message?: A2AOutMessage;
  timestamp?: string;
}

export interface Artifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: A2APart[];
  metadata?: Record<string, unknown>;
}

export interface Task {
  kind: "task";
  id: string;
  contextId: string;
  status: TaskStatus;
  history?: A2AOutMessage[];
  artifacts?: Artifact[];
  metadata?: Record<string, unknown>;
}

export interface TaskStatusUpdateEvent {
  kind: "status-update";
  taskId: string;
  contextId: string;
  status: TaskStatus;
  final: boolean;
  metadata?: Record<string, unknown>;
}

export interface TaskArtifactUpdateEvent {
  kind: "artifact-update";
  taskId: string;
  contextId: string;
  artifact: Artifact;
  append?: boolean;
  lastChunk?: boolean;
}

export type StreamResult = Task | A2AOutMessage | TaskStatusUpdateEvent | TaskArtifactUpdateEvent;

/** A JSON-RPC success answer. */
export function rpcResult(id: string | number | null | undefined, result: unknown) {
  return { jsonrpc: "2.0" as const, id: id ?? null, result };
}

const STATES = [
  "submitted",
  "working",
  "input-required",
  "completed",
  "canceled",
  "failed",
  "rejected",
  "auth-required",
  "unknown",
] as const;

const outMessage = z.object({
  kind: z.literal("message"),
  messageId: z.string(),
  role: z.enum(["user", "agent"]),
  parts: z.array(a2aPart),
  contextId: z.string().optional(),
  taskId: z.string().optional(),
  metadata,
});
const artifact = z.object({
  artifactId: z.string(),
  name: z.string().optional(),
  description: z.string().optional(),
  parts: z.array(a2aPart),
  metadata,
});

/** A2A 0.3's Task, as the routes answer it (the documented answer the conformance suite parses). */
export const a2aTaskSchema = z
  .object({
    kind: z.literal("task"),
    id: z.string(),
    contextId: z.string(),
    status: z.object({ state: z.enum(STATES), message: outMessage.optional(), timestamp: z.string().optional() }),
    history: z.array(outMessage).optional(),
    artifacts: z.array(artifact).optional(),
    metadata,
  })
  .meta({ id: "A2ATask" });

/** The JSON-RPC answer of message/send, tasks/get and tasks/cancel (a2a-sdk's SendMessageSuccessResponse). */
export const a2aTaskAnswer = z
  .object({ jsonrpc: z.literal("2.0"), id: z.union([z.string(), z.number()]).nullable(), result: a2aTaskSchema })
  .meta({ id: "A2ATaskAnswer" });

/** A2A 0.3's AgentCard, as `agentCard` builds it. */
export const agentCardSchema = z
  .object({
    protocolVersion: z.string(),
    name: z.string(),
    description: z.string(),
    url: z.string(),
    preferredTransport: z.literal("JSONRPC"),
    version: z.string(),
    capabilities: z.object({
      streaming: z.boolean(),
      pushNotifications: z.boolean(),
      stateTransitionHistory: z.boolean(),
    }),
    defaultInputModes: z.array(z.string()),
    defaultOutputModes: z.array(z.string()),
    skills: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        description: z.string(),
        tags: z.array(z.string()),
        outputModes: z.array(z.string()).optional(),
      }),
    ),
    supportsAuthenticatedExtendedCard: z.boolean(),
  })
  .meta({ id: "A2AAgentCard" });
