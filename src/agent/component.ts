import type { Db } from "../db/port.js";
import type { RunRecord, RunRow } from "../db/types.js";
import type { RunEvent } from "./events.js";
import type { MediaInput } from "./media.js";
import type { RunOutput } from "./run-output.js";
import type { Tool } from "../tools/tool.js";
import type { TraceScope } from "../tracing/trace-scope.js";

/** What agno runs: an agent, a team of agents, or a workflow (agno's `run_type` / `component_type`). */
export type ComponentType = "agent" | "team" | "workflow";

/** Which component a run, a job, a schedule or an event belongs to. */
export interface ComponentRef {
  type: ComponentType;
  id: string;
  name?: string;
}

/** The identity fields of agno's runs and events for `ref`: `agent_id`/`agent_name` for an agent, `team_id`/`team_name` for a team, … */
export type ComponentIdentity =
  | { agent_id: string; agent_name?: string }
  | { team_id: string; team_name?: string }
  | { workflow_id: string; workflow_name?: string };

/** The run and event fields that name `ref`, as agno writes them (the run's type follows from which id is set). */
export function identityOf(ref: ComponentRef): ComponentIdentity {
  const name = ref.name;
  switch (ref.type) {
    case "team":
      return { team_id: ref.id, ...(name !== undefined ? { team_name: name } : {}) };
    case "workflow":
      return { workflow_id: ref.id, ...(name !== undefined ? { workflow_name: name } : {}) };
    default:
      // agent_name stays present (possibly undefined) as it always was, so agents' wire is unchanged.
      return { agent_id: ref.id, agent_name: name };
  }
}

/** Whether a stored run (its row or its `run_data`) belongs to `ref`. */
export function ownsRun(ref: Pick<ComponentRef, "type" | "id">, run: Record<string, unknown>): boolean {
  return run[`${ref.type}_id`] === ref.id;
}

/**
 * The write that ends a run's attempt (its status COMPLETED or PAUSED, expected from RUNNING), made
 * instead of the plain `upsertRun` so the caller can store more in the same statement (the queue
 * ends its job with it). Null: nothing was written, and the run writes itself as usual.
 */
export type RunEndHook = (run: RunRecord, expectStatus: string[]) => Promise<RunRow | null>;

/** One run of a component, in plain values: what a queued job or any other caller asks it to do. */
export interface ComponentRunInput {
  message: string;
  runId?: string;
  sessionId?: string;
  userId?: string;
  sessionState?: Record<string, unknown>;
  dependencies?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  media?: MediaInput[];
  /** the run that started this one (a team's run, for its members): stored as `parent_run_id` */
  parentRunId?: string;
  /** whether the caller takes the events as they come (else the model may answer in one piece) */
  stream: boolean;
  /** makes the run's last write (see RunEndHook) */
  onFinalWrite?: RunEndHook;
  /** tools the caller defines for this run only (agno's `client_tools`), see RunOptions.clientTools */
  clientTools?: readonly Tool[];
  /** handed the run's live session state before each batch of tool calls, see RunOptions.onSessionState */
  onSessionState?: (state: Record<string, unknown>) => void;
  /** traces the run under this span (RunOptions.trace) */
  trace?: TraceScope;
}

/** How a paused run goes on (`POST …/continue` in plain values): the resolutions of what it waits on. */
export interface ComponentResumeInput {
  /** an agent's or a team's requirement resolutions, a workflow's step requirement resolutions (validated by the component) */
  resolutions: unknown[];
  /** the run must belong to this user */
  userId?: string;
  /** admin-only requirements need an admin */
  isAdmin: boolean;
  stream: boolean;
  /** the caller's tools for the rest of the run, as on its start (RunOptions.clientTools) */
  clientTools?: readonly Tool[];
  /** handed the run's live session state before each batch of tool calls (RunOptions.onSessionState) */
  onSessionState?: (state: Record<string, unknown>) => void;
  /** traces the continued run under this span (RunOptions.trace) */
  trace?: TraceScope;
}

/**
 * What the queue, the scheduler, cancellation and HITL need of a runnable thing (an Agent; next,
 * a Team or a Workflow): its identity, a run from plain input to its stored output, and the
 * database it stores through.
 */
export interface Component {
  readonly ref: ComponentRef;
  readonly db?: Db;
  /** how often its executing runs mark their rows alive (seconds) */
  readonly heartbeatSeconds: number;
  /** the same component storing through `db` */
  withDb(db: Db): Component;
  /** agno's events as the run makes them; the generator's return value is the run's final output (its status says how it ended) */
  execute(input: ComponentRunInput): AsyncGenerator<RunEvent, RunOutput>;
  /** goes on with a paused run, from any process (a queued continue); the return value is its output as it now stands */
  resume?(runId: string, input: ComponentResumeInput): AsyncGenerator<RunEvent, RunOutput>;
}

/** Where components are found by their ref (the component registry; a plain list in tests). */
export interface ComponentSource {
  component(ref: Pick<ComponentRef, "type" | "id">): Component | undefined;
  /**
   * A stored component (components as data) built from config `version` ("current": its current
   * published one), read through `db`; undefined when it is gone, or has no published version.
   * Absent: this source serves code-defined components only.
   */
  stored?(ref: Pick<ComponentRef, "type" | "id">, version: number | "current", db: Db): Promise<Component | undefined>;
}

/** The component `ref` names in `source` (a registry, or a list of components). */
export function findComponent(
  source: ComponentSource | readonly Component[],
  ref: Pick<ComponentRef, "type" | "id">,
): Component | undefined {
  if ("component" in source && typeof source.component === "function") return source.component(ref);
  return (source as readonly Component[]).find((c) => c.ref.type === ref.type && c.ref.id === ref.id);
}

/** The stored component `ref` names at config `version` in `source`, if the source builds stored ones. */
export async function findStoredComponent(
  source: ComponentSource | readonly Component[],
  ref: Pick<ComponentRef, "type" | "id">,
  version: number | "current",
  db: Db,
): Promise<Component | undefined> {
  return "stored" in source && typeof source.stored === "function" ? source.stored(ref, version, db) : undefined;
}

/**
 * The code-defined component `ref` names, else the stored one's current published version: what
 * a job that pins no version runs (a schedule's occurrence, a queued continue), as agno resolves
 * a component by id, code first, then the database.
 */
export async function findAnyComponent(
  source: ComponentSource | readonly Component[],
  ref: Pick<ComponentRef, "type" | "id">,
  db: Db,
): Promise<Component | undefined> {
  return findComponent(source, ref) ?? (await findStoredComponent(source, ref, "current", db));
}
