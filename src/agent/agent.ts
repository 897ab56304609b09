import type { z } from "zod";
import type { StoredOrigin } from "./stored-origin.js";
import type { Db, QueueDb } from "../db/port.js";
import { jobEnqueuer, type JobQueueLimits } from "../queue/job-enqueuer.js";
import type { JobHandler } from "../queue/job-handler.js";
import type { RunRecord, RunRow, SessionRecord } from "../db/types.js";
import { mergeState, stateChanges } from "../db/state-changes.js";
import { Session } from "../db/session.js";
import {
  BadRequestError,
  ConflictError,
  DatabaseUnavailableError,
  NotConfiguredError,
  NotFoundError,
  StatusConflictError,
  ToolSourceError,
  ValidationError,
} from "../errors.js";
import { checkJson } from "../json-limits.js";
import { MESSAGE_MEDIA_FIELDS, message, type Message } from "../models/message.js";
import type { Model } from "../models/model.js";
import { defaultModelRegistry } from "../models/default-model-registry.js";
import type { ModelOptions } from "../models/model-provider.js";
import {
  modelWithStoredMedia,
  offloadMessages,
  offloadOutputMedia,
  offloadRunMedia,
} from "../offload/media-offload.js";
import type { MediaStorage } from "../offload/media-storage.js";
import type { ObjectStorage } from "../offload/object-storage.js";
import { ResultStore } from "../offload/result-store.js";
import { offloadAnswers, RESULT_TOOL_NAMES, resultTools } from "../offload/result-tools.js";
import { publicError } from "../public-error.js";
import { flattenTools, Toolkit, type Tool } from "../tools/tool.js";
import { isToolSource, type ToolSource, type ToolSourceContext } from "../tools/tool-source.js";
import { abortLocal, cancelStoredRun } from "./cancellation.js";
import {
  identityOf,
  ownsRun,
  type Component,
  type ComponentRef,
  type ComponentRunInput,
  type RunEndHook,
  type ComponentResumeInput,
} from "./component.js";
import { DEFAULT_HEARTBEAT_SECONDS } from "./liveness.js";
import type { RunEvent } from "./events.js";
import { applyResolutions, requirementResolution, type RequirementResolution } from "./hitl.js";
import {
  checkMedia,
  storedMedia,
  type CheckedMedia,
  type MediaInput,
  type MediaLimits,
  type RunMedia,
} from "./media.js";
import { addModelCall, emptyMetrics } from "./metrics.js";
import { LearningMachine } from "../learn/machine.js";
import {
  knowledgeContext,
  knowledgeSearchTool,
  type KnowledgeUseOptions,
  type ReferenceSink,
} from "../knowledge/agent-knowledge.js";
import type { Knowledge } from "../knowledge/knowledge.js";
import { pastSessionsTool } from "./past-sessions.js";
import type { TraceScope } from "../tracing/trace-scope.js";
import { RunEngine, type EngineConfig } from "./run-engine.js";
import { forkRun, planTimeline, truncateRun, type TimelineOptions } from "./run-timeline.js";
import type { RunOutput } from "./run-output.js";
import type { PendingCall } from "./tool-runner.js";
import { nowSeconds } from "../time.js";
import { MemoryManager } from "../memory/memory-manager.js";
import { memoriesForContext, sessionSummaryForContext } from "../memory/memory-prompts.js";
import { SessionSummaryManager } from "../memory/session-summary-manager.js";
import { userMemoryTool } from "../memory/user-memory-tool.js";

export interface RunContext {
  runId: string;
  sessionId: string;
  userId: string | null;
  sessionState: Record<string, unknown>;
  input: string;
  /** values the caller hands this run (agno's `dependencies`): seen by hooks, instructions and tools */
  dependencies: Record<string, unknown>;
}

export type Instructions = string | string[] | ((ctx: RunContext) => string | string[] | Promise<string | string[]>);

/** `knowledge`, `searchKnowledge`, `addKnowledgeToContext`, `knowledgeFilters`: see KnowledgeUseOptions. */
export interface AgentOptions extends KnowledgeUseOptions {
  /** stable id (default: derived from the name) */
  id?: string;
  /** set by the builders of stored configs (components as data): the version and stage built */
  stored?: StoredOrigin;
  name?: string;
  description?: string;
  /** a Model, or `"provider:model-id"` resolved with `modelOptions` through `defaultModelRegistry` at the first run (register the provider first) */
  model: Model | string;
  modelOptions?: ModelOptions;
  /** native reasoning: this model thinks first, the main model answers with its reasoning in context */
  reasoningModel?: Model | string;
  instructions?: Instructions;
  /** tools, toolkits, and tool sources (MCPTools) whose tools each run asks for as it starts */
  tools?: Array<Tool | Toolkit | ToolSource>;
  /** tool calls allowed in one run; further calls are refused and the model must answer */
  toolCallLimit?: number;
  /** run a batch of tool calls concurrently (default true) */
  parallelToolCalls?: boolean;
  /** structured output: the answer is JSON checked against this schema */
  outputSchema?: z.ZodType;
  outputSchemaName?: string;
  /** run before the model; throw to refuse the input (an InputCheckError's message reaches the client) */
  preHooks?: Array<(ctx: RunContext) => void | Promise<void>>;
  /** run on the finished output before it is stored */
  postHooks?: Array<(output: RunOutput) => void | Promise<void>>;
  /** initial session state; tools may change it and it is stored with the session */
  sessionState?: Record<string, unknown>;
  /** send the last `numHistoryRuns` runs of the session to the model (default false, 3 runs) */
  addHistoryToContext?: boolean;
  numHistoryRuns?: number;
  /** after each run, a model decides to add, update or delete the user's memories (needs a db and a user id) */
  updateMemoryOnRun?: boolean;
  /**
   * give the agent agno's `update_user_memory` tool: its model sends memory tasks mid-run, which
   * the memory manager carries out (memories are then not also updated after the run)
   */
  enableAgenticMemory?: boolean;
  /** the memory manager (its model, tools, instructions and cap per user); default: one with `memoryModel` */
  memoryManager?: MemoryManager;
  /** put the user's memories in the system message (default: on when memory is, as in agno) */
  addMemoriesToContext?: boolean;
  /** the model that picks memories when the manager has none (default: the agent's model) */
  memoryModel?: Model | string;
  /** after each run, summarise the session and store the summary on it (its `summary`) */
  enableSessionSummaries?: boolean;
  /** the summariser (its model, prompt, runs taken; summaries are made with enableSessionSummaries); default: one with the agent's model */
  sessionSummaryManager?: SessionSummaryManager;
  /** put the session's stored summary in the system message (default: on when summaries are) */
  addSessionSummaryToContext?: boolean;
  /**
   * agno 3.0's learning: `true` is a LearningMachine with user profile and user memory; or a
   * machine of your own. Its guidance and what it recalls go in the system message, its stores'
   * tools to the model, and after each run its `always` stores extract what they learned
   * (through the agent's db, or the one an AgentOS binds per request: without one it is
   * inactive; user stores need the run's user id).
   */
  learning?: boolean | LearningMachine;
  /** give the agent a tool that searches the user's earlier sessions */
  searchPastSessions?: boolean;
  numPastSessionsToSearch?: number;
  numPastSessionRunsInSearch?: number;
  /** where runs and sessions are stored; without it runs are not persisted, paused runs cannot continue */
  db?: Db;
  /** how often a running run checks storage for a cancel from elsewhere (ms, default 500) */
  cancelPollMs?: number;
  /**
   * how often an executing run marks its stored row alive (seconds, default 10); a RUNNING run
   * silent for three beats counts as interrupted (its runtime died): keep it at most the
   * deployment's AGNO_RUN_HEARTBEAT_SECONDS, which the cron tick's sweep goes by
   */
  heartbeatSeconds?: number;
  /** bounds on a run's media (default 20 MiB an item, 50 MiB in all, 32 items) */
  mediaLimits?: MediaLimits;
  /**
   * Where run media (images, audio, video, files, in inputs and outputs) are uploaded before
   * the run is persisted: rows keep a `media_reference` instead of base64, and the bytes are
   * read back when the model is sent them. An AgentOS hands its own to agents without one.
   */
  mediaStorage?: MediaStorage;
  /**
   * Tool results over 16,000 characters go to object storage; the model sees an envelope (a
   * preview, the sizes, a `result_id`) and gets `read_result` and `search_result` to read on.
   * `true` uses the defaults; a ResultStore sets the threshold, TTL and (optionally) storage.
   * Needs a db (the index lives in `agno_tool_results`) and storage: the ResultStore's own,
   * else `resultStorage`, else what the runtime binds with `withOffloadStorage` (on Workers,
   * the R2 binding), so one agent definition runs unchanged under Node and on Workers.
   */
  offloadToolResults?: boolean | ResultStore;
  /** where offloaded tool results are written when the ResultStore names no storage */
  resultStorage?: ObjectStorage;
}

export interface RunOptions {
  sessionId?: string;
  userId?: string;
  runId?: string;
  /** merged over the stored session state for this run */
  sessionState?: Record<string, unknown>;
  /** handed to hooks, instructions and tools (not stored) */
  dependencies?: Record<string, unknown>;
  /** stored with the run */
  metadata?: Record<string, unknown>;
  /** images, audio, video and documents sent with the message (stored with the run, and sent again as history) */
  media?: MediaInput[];
  /** the run that started this one (a team's run, for its members): stored as `parent_run_id` */
  parentRunId?: string;
  stream?: boolean;
  /**
   * tools the caller defines for this run only (agno's `client_tools`, an AG-UI frontend's tools),
   * offered to the model beside the agent's own; a name the agent already has keeps the agent's
   */
  clientTools?: readonly Tool[];
  /**
   * Called before each batch of tool calls with the run's session state: the live object the
   * tools change in place (the stored state merged with `sessionState`, a new object), so a
   * caller reading it as the batch's ToolCallCompleted events pass sees what each call changed
   * (the AG-UI interface's STATE_DELTA). Read it, never write it: the run owns it.
   */
  onSessionState?: (state: Record<string, unknown>) => void;
  /** traces the run (its span, model and tool calls) with this tracer, under this parent span */
  trace?: TraceScope;
}

export interface ContinueOptions {
  requirements: RequirementResolution[];
  /** without requirements: where and how the run goes on (a follow-up, a fork, a regeneration) */
  timeline?: TimelineOptions;
  /** who resolves: admin-only requirements need `isAdmin` */
  approver?: { isAdmin: boolean };
  /** the run must belong to this user */
  userId?: string;
  stream?: boolean;
  /** the caller's tools for the rest of the run (RunOptions.clientTools) */
  clientTools?: readonly Tool[];
  /** handed the run's live session state before each batch of tool calls (RunOptions.onSessionState) */
  onSessionState?: (state: Record<string, unknown>) => void;
  /** traces the continued run (RunOptions.trace) */
  trace?: TraceScope;
}

/**
 * An agent: a model, instructions and tools, whose runs are stored as rows through the Db port.
 *
 * @example
 * const agent = new Agent({ name: "weather", model: "openai:gpt-4.1-mini", tools: [weather], db });
 * const out = await agent.run("Weather in Paris?", { userId: "ann" });
 * for await (const ev of agent.run("And Rome?", { sessionId: out.session_id, stream: true })) console.log(ev.event);
 */
export class Agent implements Component {
  readonly id: string;
  readonly name?: string;
  readonly description?: string;
  readonly stored?: StoredOrigin;
  readonly model: Model;
  readonly db?: Db;
  readonly mediaStorage?: MediaStorage;
  /** the durable queue's limits, set by the AgentOS that serves it with one: its tools may then enqueue jobs */
  readonly jobQueue?: JobQueueLimits;
  /** the background jobs its toolkits enqueue, for the queue that serves it to run */
  readonly jobHandlers: readonly JobHandler[];
  private readonly opts: AgentOptions;
  private readonly tools: Map<string, Tool>;
  /** where each run gets more tools as it starts (a remote MCP server's) */
  private readonly toolSources: ToolSource[];
  private readonly reasoningModel?: Model;
  private readonly memoryManager?: MemoryManager;
  private readonly summaryManager?: SessionSummaryManager;
  /** the learning machine attached with `learning` */
  readonly learning?: LearningMachine;
  /** the knowledge base, bound to the agent's db by withDb */
  private readonly knowledge?: Knowledge;
  private readonly resultStore?: ResultStore;
  readonly resultStorage?: ObjectStorage;
  /** how often its executing runs mark their rows alive (seconds) */
  readonly heartbeatSeconds: number;

  constructor(opts: AgentOptions) {
    this.opts = opts;
    this.name = opts.name;
    this.description = opts.description;
    this.stored = opts.stored;
    this.id =
      opts.id ??
      (opts.name
        ? opts.name
            .toLowerCase()
            .replace(/[^a-z0-9]+/g, "-")
            .replace(/^-|-$/g, "")
        : "agent");
    this.model =
      typeof opts.model === "string" ? defaultModelRegistry.model(opts.model, opts.modelOptions) : opts.model;
    if (opts.reasoningModel)
      this.reasoningModel =
        typeof opts.reasoningModel === "string"
          ? defaultModelRegistry.model(opts.reasoningModel, opts.modelOptions)
          : opts.reasoningModel;
    this.heartbeatSeconds = opts.heartbeatSeconds ?? DEFAULT_HEARTBEAT_SECONDS;
    if (!(this.heartbeatSeconds > 0)) throw new TypeError("heartbeatSeconds must be > 0");
    if (opts.toolCallLimit !== undefined && (!Number.isInteger(opts.toolCallLimit) || opts.toolCallLimit < 0))
      throw new TypeError("toolCallLimit must be a whole number >= 0");
    const tools = (opts.tools ?? []).filter((t): t is Tool | Toolkit => !isToolSource(t));
    this.toolSources = (opts.tools ?? []).filter(isToolSource);
    this.jobHandlers = tools.flatMap((t) => (t instanceof Toolkit ? t.jobHandlers : []));
    if (opts.searchPastSessions) {
      if (!opts.db) throw new TypeError("searchPastSessions needs a db");
      tools.push(pastSessionsTool(opts.db, opts.numPastSessionsToSearch ?? 3, opts.numPastSessionRunsInSearch ?? 3));
    }
    this.tools = flattenTools(tools);
    this.knowledge = opts.knowledge;
    if (opts.offloadToolResults)
      this.resultStore = opts.offloadToolResults === true ? new ResultStore() : opts.offloadToolResults;
    this.resultStorage = opts.resultStorage;
    this.db = opts.db;
    this.mediaStorage = opts.mediaStorage;
    if (opts.updateMemoryOnRun || opts.enableAgenticMemory || opts.memoryManager) {
      if (!opts.db && !opts.memoryManager?.db) throw new TypeError("memory needs a db");
      const manager = opts.memoryManager ?? new MemoryManager();
      this.memoryManager = manager.model
        ? manager
        : manager.withModel(
            !opts.memoryModel
              ? this.model
              : typeof opts.memoryModel === "string"
                ? defaultModelRegistry.model(opts.memoryModel, opts.modelOptions)
                : opts.memoryModel,
          );
    }
    if (opts.enableSessionSummaries || opts.sessionSummaryManager) {
      if (!opts.db) throw new TypeError("session summaries need a db");
      const manager = opts.sessionSummaryManager ?? new SessionSummaryManager();
      this.summaryManager = manager.model ? manager : manager.withModel(this.model);
    }
    if (opts.learning) {
      this.learning =
        opts.learning === true ? new LearningMachine({ userProfile: true, userMemory: true }) : opts.learning;
    }
    checkAddedTools(this.tools, this.addedToolNames());
  }

  /** The tools each option adds to the agent's own, by option, as `toolsFor` adds them. */
  private addedToolNames(): [option: string, names: readonly string[]][] {
    const opts = this.opts;
    return [
      ["offloadToolResults", opts.offloadToolResults ? RESULT_TOOL_NAMES : []],
      ["enableAgenticMemory", opts.enableAgenticMemory ? ["update_user_memory"] : []],
      ["learning", this.learning ? this.learning.tools(() => undefined, this.id).map((t) => t.name) : []],
      ["knowledge", this.knowledge && opts.searchKnowledge !== false ? ["search_knowledge_base"] : []],
    ];
  }

  /** What it was built from, resolved (models as Model objects): read to describe it, as AgentOS's agent detail does. */
  get configuration(): { options: Readonly<AgentOptions>; tools: Tool[]; reasoningModel?: Model; memoryModel?: Model } {
    return {
      options: this.opts,
      tools: [...this.tools.values()],
      reasoningModel: this.reasoningModel,
      memoryModel: this.memoryManager?.model,
    };
  }

  /** Its identity as a component: the queue, the scheduler and its runs' rows and events name it by this. */
  get ref(): ComponentRef {
    return { type: "agent", id: this.id, name: this.name };
  }

  /** The same agent storing through another Db (on Workers: the request's own connection). */
  withDb(db: Db): Agent {
    if (db === this.db) return this;
    const bound = Object.create(Object.getPrototypeOf(this) as object) as Agent;
    // the knowledge base stores its contents (and, on PgVector, its vectors) through the same connection
    Object.assign(bound, this, { db, knowledge: this.knowledge?.withDb(db) });
    return bound;
  }

  /**
   * The same agent answering with `model` instead (a copy: the agent itself is unchanged), as
   * agno's eval route runs a fresh copy of the agent on the model a request names. Its memory and
   * summary managers keep the models they were built with.
   */
  withModel(model: Model): Agent {
    if (model === this.model) return this;
    const bound = Object.create(Object.getPrototypeOf(this) as object) as Agent;
    Object.assign(bound, this, { model });
    return bound;
  }

  /** The same agent keeping run media in `storage` (an AgentOS gives its own to agents that have none). */
  withMediaStorage(storage: MediaStorage): Agent {
    if (storage === this.mediaStorage) return this;
    const bound = Object.create(Object.getPrototypeOf(this) as object) as Agent;
    Object.assign(bound, this, { mediaStorage: storage });
    return bound;
  }

  /** A model that is sent the bytes of referenced media (one per run: it remembers what it read). */
  private withStoredMedia(model: Model): Model;
  private withStoredMedia(model: Model | undefined): Model | undefined;
  private withStoredMedia(model: Model | undefined): Model | undefined {
    return model && this.mediaStorage ? modelWithStoredMedia(model, this.mediaStorage) : model;
  }

  /**
   * The same agent with its tools able to enqueue background jobs (ToolContext.enqueueJob) into
   * the durable queue of whatever database it is bound to, under `limits`: an AgentOS with the
   * durable queue calls this, as it gives its media storage.
   */
  withJobQueue(limits: JobQueueLimits): Agent {
    if (limits === this.jobQueue) return this;
    const bound = Object.create(Object.getPrototypeOf(this) as object) as Agent;
    Object.assign(bound, this, { jobQueue: limits });
    return bound;
  }

  /**
   * The same agent writing offloaded tool results to `storage` (unless its ResultStore names its
   * own). The runtime calls this with the storage it owns, as it calls `withDb`.
   */
  withOffloadStorage(storage: ObjectStorage): Agent {
    if (storage === this.resultStorage) return this;
    const bound = Object.create(Object.getPrototypeOf(this) as object) as Agent;
    Object.assign(bound, this, { resultStorage: storage });
    return bound;
  }

  /** The offload store with its storage, and the db, for this binding; NotConfiguredError when one is missing. */
  private offloadTarget(): { store: ResultStore; db: Db } | undefined {
    if (!this.resultStore) return undefined;
    const store =
      this.resultStore.storage || !this.resultStorage
        ? this.resultStore
        : this.resultStore.withStorage(this.resultStorage);
    if (!store.storage || !this.db) {
      throw new NotConfiguredError(
        "offloadToolResults needs a db and a storage (a ResultStore with storage, resultStorage, or withOffloadStorage)",
      );
    }
    return { store, db: this.db };
  }

  /**
   * The agent's tools, plus read_result and search_result when offload is on, update_user_memory
   * with agentic memory, the learning stores' tools, and search_knowledge_base (recording its
   * references on `run`) when it has knowledge.
   */
  private toolsFor(
    offload: { store: ResultStore; db: Db } | undefined,
    run?: ReferenceSink,
    sourced: Tool[] = [],
  ): Map<string, Tool> {
    const learning = this.learning
      ? this.learning.tools(
          () => this.db,
          this.id,
          () => this.model,
        )
      : [];
    const searchKnowledge = this.knowledge && this.opts.searchKnowledge !== false;
    const added = [
      ...(offload ? resultTools(offload.store, offload.db) : []),
      // Built per binding: its manager stores through this binding's db.
      ...(this.opts.enableAgenticMemory ? [userMemoryTool(this.boundMemoryManager(), this.memoryOrigin())] : []),
      // Built per binding: the learning tools store through this binding's db.
      ...learning,
      ...(searchKnowledge
        ? [knowledgeSearchTool(this.knowledge!, { filters: this.opts.knowledgeFilters, sink: run })]
        : []),
    ];
    // A run with tool sources gets its own map: its sources' tools join it as the run starts.
    if (added.length === 0 && sourced.length === 0 && this.toolSources.length === 0) return this.tools;
    return new Map([...this.tools, ...[...added, ...sourced].map((t) => [t.name, t] as const)]);
  }

  /**
   * The tools of the agent's tool sources for one run, all asked at once. A name another tool
   * already holds fails the run, naming the source (its prefix option is the usual cure).
   */
  private async sourceTools(ctx: ToolSourceContext, taken: ReadonlyMap<string, Tool>): Promise<Tool[]> {
    if (this.toolSources.length === 0) return [];
    const lists = await Promise.all(this.toolSources.map((s) => s.resolveTools(ctx)));
    const names = new Set(taken.keys());
    return lists.flatMap((list, i) =>
      list.map((t) => {
        if (names.has(t.name))
          throw new ToolSourceError(
            `tool source ${this.toolSources[i]!.id} adds the tool ${t.name}, which another tool already holds: give it a prefix`,
          );
        names.add(t.name);
        return t;
      }),
    );
  }

  /** What a tool source is told of a run resumed from its stored output. */
  private sourceContext(output: RunOutput, sessionState: Record<string, unknown>): ToolSourceContext {
    return {
      runId: output.run_id,
      sessionId: output.session_id,
      userId: output.user_id ?? null,
      sessionState,
      dependencies: {},
      component: this.ref,
    };
  }

  /** `streamed`: whether the caller takes the run's events as they come (its model calls stream only then). */
  private engineConfig(
    streamed: boolean,
    saveState: (state: Record<string, unknown>) => Promise<void>,
    onFinalWrite?: RunEndHook,
    run?: RunOutput,
    sourced?: Tool[],
    clientTools?: readonly Tool[],
    onSessionState?: (state: Record<string, unknown>) => void,
    trace?: TraceScope,
  ): EngineConfig {
    const offload = this.offloadTarget();
    return {
      ref: this.ref,
      ...(trace ? { trace } : {}),
      streamModel: streamed,
      ...(onFinalWrite ? { onFinalWrite } : {}),
      ...(onSessionState ? { onSessionState } : {}),
      model: this.withStoredMedia(this.model),
      reasoningModel: this.withStoredMedia(this.reasoningModel),
      tools: withClientTools(this.toolsFor(offload, run, sourced), clientTools),
      answerFilter: offload && offloadAnswers(offload.store, offload.db),
      toolCallLimit: this.opts.toolCallLimit,
      parallelToolCalls: this.opts.parallelToolCalls ?? true,
      outputSchema: this.opts.outputSchema,
      outputSchemaName: this.opts.outputSchemaName,
      db: this.db,
      ...(this.jobQueue && this.db && "jobs" in this.db
        ? { jobs: jobEnqueuer((this.db as QueueDb).jobs, this.jobQueue) }
        : {}),
      cancelPollMs: this.opts.cancelPollMs ?? 500,
      heartbeatMs: this.heartbeatSeconds * 1000,
      postHooks: [
        ...(this.opts.postHooks ?? []),
        ...(this.memoryManager && this.opts.updateMemoryOnRun && !this.opts.enableAgenticMemory
          ? [(out: RunOutput) => this.rememberFrom(out)]
          : []),
        ...(this.summaryManager && this.opts.enableSessionSummaries === true
          ? [(out: RunOutput) => this.summariseSession(out)]
          : []),
        ...(this.learning ? [(out: RunOutput) => this.learnFrom(out)] : []),
        // Last, so media a post hook attached are uploaded too, before the final save.
        ...(this.mediaStorage ? [(out: RunOutput) => offloadOutputMedia(out, this.mediaStorage!)] : []),
      ],
      saveSession: (output) => saveState(output.session_state ?? {}),
      ...this.engineHooks(),
    };
  }

  /** What a component built on the agent adds to its runs' engine (a team: its delegation hooks). */
  protected engineHooks(): Partial<EngineConfig> {
    return {};
  }

  /**
   * Runs the agent: a RunOutput, or with `stream: true` an async stream of agno's events.
   * Bad input (a ValidationError naming the field) is refused before anything is stored: a
   * streaming call throws it at once, so a server can answer 422 before the stream starts; the
   * promise form rejects with it.
   *
   * @example
   * const out = await agent.run("What is in this picture?", { media: [{ data: pngBytes, mimeType: "image/png" }] });
   */
  run(input: string, opts: RunOptions & { stream: true }): AsyncIterable<RunEvent>;
  run(input: string, opts?: RunOptions & { stream?: false }): Promise<RunOutput>;
  run(input: string, opts?: RunOptions): Promise<RunOutput> | AsyncIterable<RunEvent>;
  run(input: string, opts: RunOptions = {}): Promise<RunOutput> | AsyncIterable<RunEvent> {
    let events: AsyncGenerator<RunEvent, RunOutput>;
    try {
      events = this.execute({ ...opts, message: input, stream: opts.stream === true });
    } catch (error) {
      if (opts.stream) throw error;
      return Promise.reject(error);
    }
    return opts.stream ? events : drain(events);
  }

  /**
   * One run as a component runs it (the queue's way): its events, and the final RunOutput as the
   * generator's return value. Bad input throws at once, before anything is stored.
   */
  execute(input: ComponentRunInput): AsyncGenerator<RunEvent, RunOutput> {
    const { message: text, onFinalWrite, ...opts } = input;
    const media = this.checkInput(text, opts.media);
    // A value too deep for a stack or for jsonb, refused before the session is written.
    for (const field of ["sessionState", "dependencies", "metadata"] as const) checkJson(opts[field], field);
    this.offloadTarget();
    return this.startRun(text, opts, media, onFinalWrite);
  }

  private checkInput(input: unknown, media: unknown): CheckedMedia[] {
    if (typeof input !== "string") throw new ValidationError("input must be a string", "message");
    const checked = checkMedia(media, this.opts.mediaLimits);
    if (checked.length > 0) {
      this.model.checkMedia?.(checked);
      this.reasoningModel?.checkMedia?.(checked);
    }
    return checked;
  }

  private async *startRun(
    input: string,
    opts: RunOptions,
    media: CheckedMedia[],
    onFinalWrite?: RunEndHook,
  ): AsyncGenerator<RunEvent, RunOutput> {
    const runId = opts.runId ?? crypto.randomUUID();
    const sessionId = opts.sessionId ?? crypto.randomUUID();
    const userId = opts.userId ?? null;
    // Uploaded before anything is stored: the first write (status RUNNING) already holds references only.
    const runMedia = this.mediaStorage
      ? await offloadRunMedia(storedMedia(media), this.mediaStorage)
      : storedMedia(media);
    // Only a run id the caller chose can already exist (a queued run, perhaps cancelled).
    const stored = await this.loadSession(
      sessionId,
      userId,
      input,
      opts.runId,
      opts.sessionId === undefined,
      opts.parentRunId,
    );
    // As agno: the run's own session_state merged over the stored one, which goes over the agent's defaults.
    const sessionState = mergeState({ ...this.opts.sessionState, ...stored.state }, opts.sessionState ?? {});
    const saveState = this.sessionSaver(sessionId, stored.state);
    const dependencies = { ...opts.dependencies };
    const ctx: RunContext = { runId, sessionId, userId, sessionState, input, dependencies };
    const output: RunOutput = {
      run_id: runId,
      ...identityOf(this.ref),
      session_id: sessionId,
      user_id: userId,
      ...(opts.parentRunId ? { parent_run_id: opts.parentRunId } : {}),
      status: "PENDING",
      content_type: "str",
      input: { input_content: input, ...runMedia },
      model: this.model.id,
      model_provider: this.model.provider,
      messages: [],
      tools: [],
      requirements: [],
      metrics: emptyMetrics(),
      ...(opts.metadata ? { metadata: opts.metadata } : {}),
      created_at: nowSeconds(),
    };
    const existing = stored.run;
    if (existing?.status === "CANCELLED") {
      // Cancelled before it started (a queued run): it never runs.
      output.status = "CANCELLED";
      yield {
        event: "RunCancelled",
        run_id: runId,
        session_id: sessionId,
        ...identityOf(this.ref),
        created_at: nowSeconds(),
        reason: "cancelled before start",
      };
      return output;
    }
    if (existing && existing.status !== "PENDING") throw new ConflictError(`run ${runId} already exists`);
    const userMessage = message("user", input, messageMedia(runMedia));
    output.messages.push(userMessage);
    const preHooks = this.opts.preHooks ?? [];
    const config = this.engineConfig(
      opts.stream === true,
      saveState,
      onFinalWrite,
      output,
      undefined,
      opts.clientTools,
      opts.onSessionState,
      opts.trace,
    );
    const prepare = async (opened: () => Promise<void>) => {
      // Inside the run, so a source that fails (an MCP server that refuses) fails it as a RunError.
      const sourceCtx = { runId, sessionId, userId, sessionState, dependencies, component: this.ref };
      for (const t of await this.sourceTools(sourceCtx, config.tools)) config.tools.set(t.name, t);
      // The session and the run are stored before the state is written and before a pre-hook
      // (the user's code) sees the run, as when the first write was waited for.
      if (opts.sessionState || preHooks.length > 0) await opened();
      // A run's session_state is the session's from now on, as in agno, whether or not a tool changes it.
      if (opts.sessionState) await saveState(sessionState);
      for (const hook of preHooks) await hook(ctx);
      const system = await this.systemMessage(ctx, stored.summary);
      if (this.knowledge && this.opts.addKnowledgeToContext)
        userMessage.content =
          (userMessage.content ?? "") +
          (await knowledgeContext(
            this.knowledge,
            input,
            { userId, sessionId },
            { filters: this.opts.knowledgeFilters, sink: output },
          ));
      const history = stored.history.map((m) => ({ ...m, from_history: true }));
      // History from runs stored before media storage was set still holds bytes: this run stores references.
      if (this.mediaStorage) await offloadMessages(history, this.mediaStorage);
      output.messages.unshift(...(system ? [message("system", system)] : []), ...history);
    };
    return yield* new RunEngine(config, output, sessionState, dependencies).start(
      prepare,
      stored.create && ((run) => this.createSession(stored.create!, run)),
    );
  }

  /**
   * Creates the run's new session with the run's first write, in one statement when the db can
   * (true: the run is stored), else alone (false: the run's write is still to make). An error
   * means nothing was stored.
   */
  private async createSession(session: SessionRecord, run: RunRecord): Promise<boolean> {
    const db = this.db!;
    if (db.createSessionWithRun) {
      try {
        return (await db.createSessionWithRun(session, run, { deferFlush: true })) !== null;
      } catch (error) {
        // Any other failure is tried again as two writes, which tell the session's from the run's.
        if (error instanceof ConflictError || error instanceof DatabaseUnavailableError) throw error;
      }
    }
    await db.createSession(session);
    return false;
  }

  private async systemMessage(ctx: RunContext, sessionSummary?: unknown): Promise<string> {
    const raw =
      typeof this.opts.instructions === "function" ? await this.opts.instructions(ctx) : this.opts.instructions;
    const instructions = Array.isArray(raw) ? raw : raw ? [raw] : [];
    const withMemories = (this.opts.addMemoriesToContext ?? this.memoryManager !== undefined) && ctx.userId;
    // Without a manager (addMemoriesToContext alone) the memories are read as agno's default manager reads them.
    const stored = !withMemories
      ? undefined
      : this.memoryManager
        ? await this.boundMemoryManager().getUserMemories(ctx.userId!)
        : await this.db?.getUserMemories(ctx.userId!, { limit: 100 });
    const memories = stored ? memoriesForContext(stored, this.opts.enableAgenticMemory === true) : "";
    const withSummary = this.opts.addSessionSummaryToContext ?? this.summaryManager !== undefined;
    const summary = withSummary && typeof sessionSummary === "string" ? sessionSummaryForContext(sessionSummary) : "";
    const learning =
      this.learning && this.db
        ? await this.learning.systemMessageBlock({
            db: this.db,
            userId: ctx.userId,
            sessionId: ctx.sessionId,
            runId: ctx.runId,
            agentId: this.id,
          })
        : "";
    return [this.opts.description, ...instructions, memories, summary, learning].filter(Boolean).join("\n\n");
  }

  /** The learning machine's extractions after a run; as agno, a failing store is logged and the run stands. */
  private async learnFrom(output: RunOutput): Promise<void> {
    if (!this.db) return;
    const failures = await this.learning!.process({
      db: this.db,
      userId: output.user_id ?? null,
      sessionId: output.session_id,
      runId: output.run_id,
      agentId: this.id,
      // As agno: a machine without a model extracts with the agent's. Passed per call, never
      // stored on the machine, which other agents may share.
      model: this.model,
      messages: output.messages,
      onModelCall: (call) => addModelCall(output.metrics, call),
    });
    for (const f of failures)
      console.warn(`run ${output.run_id}: learning (${f.store}): ${publicError(f.error, "learning").message}`);
  }

  /** The memory manager storing through this binding's db (the manager's own when it has one). */
  private boundMemoryManager(): MemoryManager {
    const manager = this.memoryManager!;
    return manager.db || !this.db ? manager : manager.withDb(this.db);
  }

  /** Where memories this agent makes come from: a team leader's are the team's. */
  private memoryOrigin(): { agentId?: string; teamId?: string } {
    return this.ref.type === "team" ? { teamId: this.id } : { agentId: this.id };
  }

  /** Lets the memory manager update the user's memories from the run's message; a failure is recorded on the run, never fails it. */
  private async rememberFrom(output: RunOutput): Promise<void> {
    const input = output.input.input_content;
    if (!output.user_id || typeof input !== "string" || input.trim() === "") return;
    try {
      await this.boundMemoryManager().createUserMemories(
        { message: input },
        { userId: output.user_id, ...this.memoryOrigin(), metrics: output.metrics },
      );
    } catch (error) {
      output.memory_update_error = publicError(error, `run ${output.run_id}: memory update`).message;
    }
  }

  /**
   * Summarises the session, this run included, and stores the summary on it; a failure is
   * recorded on the run (with the memories' error), never fails it.
   */
  private async summariseSession(output: RunOutput): Promise<void> {
    if (!this.db || output.parent_run_id) return;
    try {
      const manager = this.summaryManager!;
      const stored = await this.db.getSession(output.session_id, {
        userId: output.user_id ?? undefined,
        ...(manager.lastNRuns ? { runsLimit: manager.lastNRuns + 1 } : {}),
      });
      if (!stored) return;
      // This run is stored already (unfinished): its messages are taken from the output instead.
      const earlier = new Session({
        ...stored.record,
        runs: stored.runs.filter((r) => r.run_id !== output.run_id),
      }).getMessages({ skipRoles: ["system"], ...(manager.lastNRuns ? { lastNRuns: manager.lastNRuns - 1 } : {}) });
      const current = output.messages.filter((m) => !m.from_history && m.role !== "system");
      const summary = await manager.createSessionSummary([...earlier, ...current] as Message[], output.metrics);
      if (summary) await this.db.setSessionSummary(output.session_id, summary, { userId: output.user_id ?? undefined });
    } catch (error) {
      const problem = publicError(error, `run ${output.run_id}: session summary`).message;
      output.memory_update_error = output.memory_update_error ? `${output.memory_update_error}; ${problem}` : problem;
    }
  }

  /**
   * The session's state and history, and the stored run `runId` if there is one (read together:
   * a queued run starts with one round trip); for a session not stored yet, the record to create
   * (named after its first message), which the run's first write stores.
   */
  private async loadSession(
    sessionId: string,
    userId: string | null,
    input: string,
    runId?: string,
    newId = false,
    parentRunId?: string,
  ): Promise<{
    state: Record<string, unknown>;
    history: Message[];
    run: RunRow | null;
    create?: SessionRecord;
    /** the text of the session's stored summary, if it has one */
    summary?: unknown;
  }> {
    if (!this.db) return { state: {}, history: [], run: null };
    const withHistory = this.opts.addHistoryToContext === true;
    // A member run's history is its own earlier runs in the team's session, not the team's conversation.
    const memberHistory = withHistory && parentRunId !== undefined;
    const sessionOpts =
      withHistory && !memberHistory ? { runsLimit: this.opts.numHistoryRuns ?? 3 } : { includeRuns: false };
    // A session id the run just made up cannot be stored yet: reading it would be a wasted round trip.
    const { session, run } = runId
      ? await this.db.getSessionWithRun(sessionId, runId, sessionOpts)
      : { session: newId ? null : await this.db.getSession(sessionId, sessionOpts), run: null };
    if (session) {
      // A run belongs to its session's owner: another user's session, or (for a run with a user)
      // a shared one, which only admins edit (SPEC U2), is not this run's to write.
      if ((session.record.user_id ?? null) !== (userId ?? null))
        throw new NotFoundError(`session ${sessionId} not found`);
      const state = (session.record.session_data?.session_state as Record<string, unknown> | undefined) ?? {};
      const history = memberHistory
        ? await this.ownRunsHistory(sessionId)
        : withHistory
          ? (session.getMessages({ skipRoles: ["system"] }) as Message[])
          : [];
      return { state, history, run, summary: session.record.summary?.summary };
    }
    // A team's leader is an agent storing under the team's identity: its session is the team's.
    const type = this.ref.type;
    const create: SessionRecord = {
      session_id: sessionId,
      session_type: type,
      [`${type}_id`]: this.id,
      user_id: userId,
      session_data: { session_name: input.slice(0, 100), session_state: { ...this.opts.sessionState } },
      [`${type}_data`]: {
        [`${type}_id`]: this.id,
        name: this.name ?? null,
        model: { id: this.model.id, provider: this.model.provider },
      },
    };
    return { state: { ...this.opts.sessionState }, history: [], run, create };
  }

  /** The messages of this component's last finished runs in the session (a team member's own history there). */
  private async ownRunsHistory(sessionId: string): Promise<Message[]> {
    const page = await this.db!.getRuns({
      sessionId,
      ...(this.ref.type === "team" ? { teamId: this.id } : { agentId: this.id }),
      status: "COMPLETED",
      sortBy: "created_at",
      sortOrder: "desc",
      limit: Math.max(1, this.opts.numHistoryRuns ?? 3),
    });
    const runs = page.data.reverse().map((row) => row.run_data);
    return new Session({ session_id: sessionId, session_type: this.ref.type, runs }).getMessages({
      skipRoles: ["system"],
      includeMemberRuns: true,
    }) as Message[];
  }

  /**
   * Saves a run's session state as the changes it made since it loaded it (or last saved it),
   * applied to the stored state under the session's lock: runs of one session that overlap keep
   * each other's writes (a note each of them appended) instead of the last one overwriting all.
   */
  private sessionSaver(
    sessionId: string,
    loaded: Record<string, unknown>,
  ): (state: Record<string, unknown>) => Promise<void> {
    const copy = (state: Record<string, unknown>) => JSON.parse(JSON.stringify(state)) as Record<string, unknown>;
    let base = copy(loaded);
    return async (state) => {
      if (!this.db) return;
      const changes = stateChanges(base, copy(state));
      if (changes.length === 0) return;
      await this.db.updateSessionState(sessionId, changes);
      base = copy(state);
    };
  }

  /**
   * Resumes a paused run with the resolutions of its requirements, from any process: everything
   * it needs is read from storage. Resolving only some keeps it paused, with nothing lost.
   */
  continueRun(runId: string, opts: ContinueOptions & { stream: true }): AsyncIterable<RunEvent>;
  continueRun(runId: string, opts: ContinueOptions & { stream?: false }): Promise<RunOutput>;
  continueRun(runId: string, opts: ContinueOptions): Promise<RunOutput> | AsyncIterable<RunEvent>;
  continueRun(runId: string, opts: ContinueOptions): Promise<RunOutput> | AsyncIterable<RunEvent> {
    const events = this.resumeRun(runId, opts);
    return opts.stream ? events : drain(events);
  }

  resume(runId: string, input: ComponentResumeInput): AsyncGenerator<RunEvent, RunOutput> {
    return this.resumeRun(runId, {
      requirements: input.resolutions as RequirementResolution[],
      approver: { isAdmin: input.isAdmin },
      stream: input.stream,
      ...(input.userId !== undefined ? { userId: input.userId } : {}),
      ...(input.clientTools ? { clientTools: input.clientTools } : {}),
      ...(input.onSessionState ? { onSessionState: input.onSessionState } : {}),
      ...(input.trace ? { trace: input.trace } : {}),
    });
  }

  protected async *resumeRun(runId: string, opts: ContinueOptions): AsyncGenerator<RunEvent, RunOutput> {
    if (!this.db) throw new NotConfiguredError("continuing a run needs the agent to have a db");
    const resolutions = (opts.requirements ?? []).map((r, i) => {
      const parsed = requirementResolution.safeParse(r);
      if (!parsed.success)
        throw new ValidationError(`requirements[${i}]: ${parsed.error.issues[0]?.message}`, `requirements.${i}`);
      return parsed.data;
    });
    const row = await this.db.getRun(runId, opts.userId !== undefined ? { userId: opts.userId } : {});
    if (!row || !ownsRun(this.ref, row.run_data)) throw new NotFoundError(`run ${runId} not found`);
    const unresolved = ((row.run_data as unknown as RunOutput).requirements ?? []).some((r) => !r.resolved);
    if (resolutions.length === 0 && !(row.status === "PAUSED" && unresolved))
      return yield* this.continueTimeline(row.run_data as unknown as RunOutput, opts);
    const timeline = opts.timeline ?? {};
    if (timeline.fork || timeline.regenerate || timeline.input || (timeline.continueFrom ?? "end") !== "end")
      throw new ValidationError(
        "input, fork, regenerate and continue_from go on a run without pending requirements: resolve them first",
        "requirements",
      );
    if (row.status !== "PAUSED") throw new StatusConflictError(`run ${runId} is ${row.status}, not PAUSED`, row.status);
    if (resolutions.length === 0)
      throw new BadRequestError(`run ${runId} waits on requirements: send the resolved tools or requirements`);
    const output = row.run_data as unknown as RunOutput;
    output.requirements = applyResolutions(output.requirements ?? [], resolutions, opts.approver ?? { isAdmin: false });
    const base = {
      run_id: runId,
      session_id: output.session_id,
      ...identityOf(this.ref),
      created_at: nowSeconds(),
    };
    if (output.requirements.some((r) => !r.resolved)) {
      await this.db.upsertRun(output as unknown as RunRecord, { expectStatus: ["PAUSED"] });
      const pending = output.requirements.filter((r) => !r.resolved);
      yield {
        event: "RunPaused",
        ...base,
        tools: pending.map((r) => r.tool_execution),
        requirements: output.requirements,
      };
      return output;
    }
    const sourced = await this.sourceTools(this.sourceContext(output, output.session_state ?? {}), this.tools);
    const calls = this.heldCalls(output, sourced);
    output.requirements = [];
    return yield* this.resumePaused(output, calls, opts.stream === true, sourced, opts);
  }

  /**
   * Goes on with a paused run its caller holds rather than storage (a workflow step's agent, run
   * without its db): `run.requirements` already carry the resolutions. Still unresolved ones
   * keep it PAUSED (a RunPaused event); else its held calls run and its loop goes on.
   */
  async *continueHeldRun(
    run: RunOutput,
    sessionState: Record<string, unknown>,
    stream: boolean,
  ): AsyncGenerator<RunEvent, RunOutput> {
    const pending = (run.requirements ?? []).filter((r) => !r.resolved);
    if (pending.length > 0) {
      yield {
        event: "RunPaused",
        run_id: run.run_id,
        session_id: run.session_id,
        ...identityOf(this.ref),
        created_at: nowSeconds(),
        tools: pending.map((r) => r.tool_execution),
        requirements: run.requirements,
      };
      return run;
    }
    const sourced = await this.sourceTools(this.sourceContext(run, sessionState), this.tools);
    const calls = this.heldCalls(run, sourced);
    run.requirements = [];
    const saveState = async () => undefined;
    return yield* new RunEngine(
      this.engineConfig(stream, saveState, undefined, run, sourced),
      run,
      sessionState,
    ).resume(calls);
  }

  /** Resumes the stored PAUSED run `output` with `calls` (the calls it held, each with its answer or to run now), then its loop. */
  protected async *resumePaused(
    output: RunOutput,
    calls: PendingCall[],
    stream: boolean,
    sourced?: Tool[],
    caller: Pick<ContinueOptions, "clientTools" | "onSessionState" | "trace"> = {},
  ): AsyncGenerator<RunEvent, RunOutput> {
    const session = await this.db!.getSession(output.session_id, { includeRuns: false });
    const state = {
      ...((session?.record.session_data?.session_state as Record<string, unknown> | undefined) ??
        output.session_state ??
        {}),
    };
    sourced ??= await this.sourceTools(this.sourceContext(output, state), this.tools);
    return yield* new RunEngine(
      this.engineConfig(
        stream,
        this.sessionSaver(output.session_id, state),
        undefined,
        output,
        sourced,
        caller.clientTools,
        caller.onSessionState,
        caller.trace,
      ),
      output,
      state,
    ).resume(calls);
  }

  /**
   * Continues a run that waits on nobody (agno's unified continue): a finished run goes on in a
   * new sibling run (so one run stays one model loop), a failed one in place; either may first be
   * cut back to a message boundary and given a new user message.
   */
  private async *continueTimeline(run: RunOutput, opts: ContinueOptions): AsyncGenerator<RunEvent, RunOutput> {
    if (run.status === "CANCELLED" || run.status === "RUNNING" || run.status === "PENDING")
      throw new StatusConflictError(`run ${run.run_id} is ${run.status}: it cannot be continued`, run.status);
    const plan = planTimeline(run, opts.timeline ?? {});
    let output: RunOutput;
    if (plan.fork) {
      output = forkRun(run, plan.boundary, crypto.randomUUID());
      output.status = "PENDING";
      if (opts.timeline?.regenerate) output.regenerated_from = run.run_id;
    } else {
      output = run;
      truncateRun(output, plan.boundary);
      delete output.error;
    }
    if (plan.input) output.messages.push(message("user", plan.input));
    if (plan.hideOriginal)
      await this.db!.upsertRun({ ...run, status: "REGENERATED" } as unknown as RunRecord, {
        expectStatus: [run.status],
      });
    const session = await this.db!.getSession(output.session_id, { includeRuns: false });
    const state = {
      ...((session?.record.session_data?.session_state as Record<string, unknown> | undefined) ??
        output.session_state ??
        {}),
    };
    const sourced = await this.sourceTools(this.sourceContext(output, state), this.tools);
    const engine = new RunEngine(
      this.engineConfig(
        opts.stream === true,
        this.sessionSaver(output.session_id, state),
        undefined,
        output,
        sourced,
        opts.clientTools,
        opts.onSessionState,
        opts.trace,
      ),
      output,
      state,
    );
    // Either way the run continues (RunContinued), the fork under its own id from PENDING.
    return yield* engine.resume([], plan.fork ? ["PENDING"] : [run.status]);
  }

  /** The tool calls the pause held back, each with what its resolution decided. */
  private heldCalls(output: RunOutput, sourced: Tool[]): PendingCall[] {
    const answered = new Set(output.messages.filter((m) => m.role === "tool").map((m) => m.tool_call_id));
    const last = [...output.messages].reverse().find((m) => m.role === "assistant" && m.tool_calls?.length);
    const byId = new Map(output.requirements.map((r) => [r.id, r]));
    const tools = this.toolsFor(this.offloadTarget(), output, sourced);
    return (last?.tool_calls ?? [])
      .filter((c) => !answered.has(c.id))
      .map((c) => {
        const execution = output.tools.find((t) => t.tool_call_id === c.id)!;
        const req = byId.get(c.id);
        const tool = tools.get(c.function.name);
        // A call that paused from inside runs again with its checkpoint and the decision, even a
        // rejection: the tool itself turns that into the inner call's answer.
        if (req?.checkpoint !== undefined) {
          const resumed = {
            checkpoint: req.checkpoint,
            kind: req.kind,
            confirmed: req.confirmed,
            confirmation_note: req.confirmation_note,
            args: req.tool_execution.tool_args,
            external_execution_result: req.external_execution_result,
          };
          return { execution, tool, resumed };
        }
        if (req?.confirmed === false && (req.kind === "confirmation" || req.requires_admin)) {
          const note = req.confirmation_note ? `: ${req.confirmation_note}` : "";
          return { execution, tool, answer: { text: `The user rejected this tool call${note}`, error: false } };
        }
        if (req?.kind === "external_execution")
          return { execution, tool, answer: { text: req.external_execution_result ?? "", error: false } };
        if (req?.kind === "user_input") execution.tool_args = req.tool_execution.tool_args;
        return { execution, tool };
      });
  }

  /**
   * Cancels a run from anywhere: the stored status becomes CANCELLED (a run that has not started
   * never will), and the run stops at its next step. False when the run had already ended.
   */
  async cancelRun(runId: string, opts: { userId?: string } = {}): Promise<boolean> {
    if (!this.db) return abortLocal(runId, "cancelled");
    return cancelStoredRun(this.db, this.ref, runId, opts);
  }
}

/** The same media records on the user message, under agno's Message field names. */
function messageMedia(media: RunMedia): Partial<Message> {
  const out: Partial<Message> = {};
  if (media.images) out[MESSAGE_MEDIA_FIELDS.image] = media.images;
  if (media.audios) out[MESSAGE_MEDIA_FIELDS.audio] = media.audios;
  if (media.videos) out[MESSAGE_MEDIA_FIELDS.video] = media.videos;
  if (media.files) out[MESSAGE_MEDIA_FIELDS.file] = media.files;
  return out;
}

async function drain(events: AsyncGenerator<RunEvent, RunOutput>): Promise<RunOutput> {
  for (;;) {
    const next = await events.next();
    if (next.done) return next.value;
  }
}

/**
 * Options add tools beside the agent's own; a name given twice would silently replace one of
 * them in the run's tool map, so it is refused when the agent is built, naming who holds it.
 */
function checkAddedTools(own: ReadonlyMap<string, Tool>, added: [option: string, names: readonly string[]][]): void {
  const holder = new Map<string, string>([...own.keys()].map((name) => [name, "the agent's own tools"]));
  for (const [option, names] of added)
    for (const name of names) {
      const first = holder.get(name);
      if (first)
        throw new TypeError(`${option} adds the tool ${name}, which ${first} already hold: rename it or turn one off`);
      holder.set(name, option);
    }
}

/** The run's tools with the caller's added: a name the agent already has keeps the agent's tool. */
function withClientTools(tools: Map<string, Tool>, clientTools: readonly Tool[] | undefined): Map<string, Tool> {
  const added = (clientTools ?? []).filter((t) => !tools.has(t.name));
  return added.length === 0 ? tools : new Map([...tools, ...added.map((t) => [t.name, t] as const)]);
}
