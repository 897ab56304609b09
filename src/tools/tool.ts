import { z } from "zod";
import type { ToolDefinition } from "../models/model.js";
import type { ResumedCall } from "./tool-pause.js";
import type { RunEvent } from "../agent/events.js";
import type { EnqueuedJob, ToolJob } from "../queue/job-enqueuer.js";
import type { JobHandler } from "../queue/job-handler.js";
import type { TraceScope } from "../tracing/trace-scope.js";

/** What a tool's `execute` receives besides its arguments. */
export interface ToolContext {
  runId: string;
  sessionId: string;
  userId: string | null;
  /** the session's state: changes made here are saved with the run */
  sessionState: Record<string, unknown>;
  /** what the caller handed the run (`dependencies`); empty on a continued run */
  dependencies: Record<string, unknown>;
  /** aborted when the run is cancelled */
  signal: AbortSignal;
  /** set only when this call paused the run earlier (it threw a ToolPause) and the run continues */
  resumed?: ResumedCall;
  /**
   * Streams an event out of the run while the tool works (a team's member runs pass their events
   * up this way); the run's caller sees it before the tool's own ToolCallCompleted.
   */
  emit?: (event: RunEvent) => void;
  /** the id of the model's call this execution answers */
  toolCallId?: string;
  /**
   * Puts work that outlasts the run on the durable queue, owned by this run's user and agent: a
   * job of a type a JobHandler runs (a toolkit brings its handler as `Toolkit.jobHandlers`).
   * Present only where such a job will run: an agent served by an AgentOS with the durable queue,
   * storing through a database that holds it.
   */
  enqueueJob?: (job: ToolJob) => Promise<EnqueuedJob>;
  /**
   * Where the call is traced, when the run is: the run's span (the tool call's own span inside
   * `execute`), so work the tool starts (a team member's run) nests under it.
   */
  trace?: TraceScope;
}

/** How a tool involves a human before it runs (SPEC G2). */
export interface ToolHumanInTheLoop {
  /** the run pauses until someone confirms or rejects the call */
  requiresConfirmation?: boolean;
  /**
   * like requiresConfirmation, but only an approver decides (an admin, or whoever holds
   * `approvals:write`): the pause writes a pending approval, resolved through `/approvals`
   * (agno's `@approval`)
   */
  requiresApproval?: boolean;
  /** seconds an approval of this tool may wait; past them it expires and cannot be resolved (default: never) */
  approvalExpiresIn?: number;
  /** the run pauses for a person to supply `userInputFields` (default: every argument) */
  requiresUserInput?: boolean;
  userInputFields?: string[];
  /** the tool runs outside the agent: the caller executes it and sends back the result */
  externalExecution?: boolean;
}

export interface ToolOptions<S extends z.ZodType> extends ToolHumanInTheLoop {
  name: string;
  description?: string;
  parameters: S;
  execute?: (args: z.infer<S>, ctx: ToolContext) => unknown;
  /** end the run after this tool answers, with its result as the run's content */
  stopAfterToolCall?: boolean;
}

export interface Tool extends ToolHumanInTheLoop {
  readonly name: string;
  readonly description?: string;
  readonly parameters: z.ZodType;
  readonly stopAfterToolCall: boolean;
  execute?: (args: unknown, ctx: ToolContext) => unknown;
  definition(): ToolDefinition;
}

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * JSON Schemas by zod schema: converting one is not free, and tools built per run (read_result,
 * search_result) share module-level schemas, so the conversion happens once per isolate.
 */
const jsonSchemas = new WeakMap<z.ZodType, Record<string, unknown>>();

function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  let json = jsonSchemas.get(schema);
  if (!json) {
    const { $schema: _drop, ...parameters } = z.toJSONSchema(schema, { target: "draft-7", io: "input" }) as Record<
      string,
      unknown
    >;
    jsonSchemas.set(schema, (json = parameters));
  }
  return json;
}

/**
 * A function tool whose arguments are typed by a zod schema. The model sees the schema as JSON
 * Schema; the arguments it sends are validated before `execute` runs, and a validation error
 * goes back to the model as the tool's answer.
 *
 * @example
 * const weather = tool({
 *   name: "get_weather",
 *   description: "Current weather for a city",
 *   parameters: z.object({ city: z.string() }),
 *   execute: async ({ city }) => ({ city, celsius: 21 }),
 * });
 */
export function tool<S extends z.ZodType>(opts: ToolOptions<S>): Tool {
  if (!NAME.test(opts.name)) throw new TypeError(`tool name ${JSON.stringify(opts.name)} must match ${NAME}`);
  if (!opts.execute && !opts.externalExecution)
    throw new TypeError(`tool ${opts.name} needs execute() unless it has externalExecution`);
  if (
    opts.approvalExpiresIn !== undefined &&
    (!opts.requiresApproval || !Number.isInteger(opts.approvalExpiresIn) || opts.approvalExpiresIn < 1)
  )
    throw new TypeError(`tool ${opts.name}: approvalExpiresIn is a whole number of seconds, with requiresApproval`);
  return {
    name: opts.name,
    description: opts.description,
    parameters: opts.parameters,
    stopAfterToolCall: opts.stopAfterToolCall ?? false,
    requiresConfirmation: opts.requiresConfirmation,
    requiresApproval: opts.requiresApproval,
    approvalExpiresIn: opts.approvalExpiresIn,
    requiresUserInput: opts.requiresUserInput,
    userInputFields: opts.userInputFields,
    externalExecution: opts.externalExecution,
    execute: opts.execute as Tool["execute"],
    definition() {
      return { name: opts.name, description: opts.description, parameters: jsonSchemaOf(opts.parameters) };
    },
  };
}

/**
 * A named group of tools with a stable id, so configurations, permissions and stored runs can
 * refer to it across versions.
 *
 * @example
 * const files = new Toolkit({ id: "files", tools: [readFile, writeFile], exclude: ["write_file"] });
 */
export class Toolkit {
  readonly id: string;
  readonly name: string;
  readonly tools: Tool[];
  /** the background jobs its tools enqueue (ToolContext.enqueueJob), run by the queue of whatever AgentOS serves it */
  readonly jobHandlers: readonly JobHandler[];

  constructor(opts: {
    id: string;
    name?: string;
    tools: Tool[];
    include?: string[];
    exclude?: string[];
    jobHandlers?: JobHandler[];
  }) {
    if (!NAME.test(opts.id)) throw new TypeError(`toolkit id ${JSON.stringify(opts.id)} must match ${NAME}`);
    this.id = opts.id;
    this.name = opts.name ?? opts.id;
    this.jobHandlers = opts.jobHandlers ?? [];
    this.tools = opts.tools.filter(
      (t) => (opts.include ? opts.include.includes(t.name) : true) && !opts.exclude?.includes(t.name),
    );
  }
}

/** Tools and toolkits flattened; two tools of one name are a configuration error. */
export function flattenTools(items: Array<Tool | Toolkit>): Map<string, Tool> {
  const out = new Map<string, Tool>();
  for (const t of items.flatMap((item) => (item instanceof Toolkit ? item.tools : [item]))) {
    if (out.has(t.name)) throw new TypeError(`two tools are named ${t.name}`);
    out.set(t.name, t);
  }
  return out;
}
