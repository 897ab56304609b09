import type { ContinueOptions, RunContext, RunOptions } from "../agent/agent.js";
import type { StoredOrigin } from "../agent/stored-origin.js";
import type { Component, ComponentRef, ComponentResumeInput, ComponentRunInput } from "../agent/component.js";
import type { RequirementResolution } from "../agent/hitl.js";
import type { RunEvent } from "../agent/events.js";
import type { RunOutput } from "../agent/run-output.js";
import type { Db } from "../db/port.js";
import type { MediaStorage } from "../offload/media-storage.js";
import type { ObjectStorage } from "../offload/object-storage.js";
import { ValidationError } from "../errors.js";
import type { Model } from "../models/model.js";
import type { Tool, ToolContext } from "../tools/tool.js";
import { cancelWaitingMembers } from "./cancel-members.js";
import { continueTeamRun, type ContinueHost } from "./continue-team-run.js";
import { delegateToMemberTool, delegateToMembersTool, memberInformationTool } from "./delegate-tools.js";
import { memberId } from "./member-id.js";
import { nextRound, roundStarted } from "./task-rounds.js";
import { taskTools } from "./task-tools.js";
import type { TeamToolHost } from "./team-context.js";
import { teamEvents } from "./team-events.js";
import { TeamLeader } from "./team-leader.js";
import { TEAM_MODES, type TeamMode } from "./team-mode.js";
import type { TeamOptions } from "./team-options.js";
import { teamContext } from "./team-prompt.js";
import { TeamRunState } from "./team-run-state.js";

/**
 * A team of agents (and teams) under a leader model, run as one component: its runs are rows
 * of their own (team_id, team_name) whose `member_responses` hold the member runs, each of which
 * is also stored, with `parent_run_id` set to the team run, in the team's session.
 *
 * @example
 * const team = new Team({ name: "desk", mode: "coordinate", model: "openai:gpt-4.1", members: [researcher, writer], db });
 * const out = await team.run("Write a note on Rome's aqueducts");
 * for await (const ev of team.run("And Paris?", { sessionId: out.session_id, stream: true })) console.log(ev.event);
 */
export class Team implements Component, TeamToolHost, ContinueHost {
  readonly id: string;
  readonly name?: string;
  readonly description?: string;
  /** the stored config it was built from (components as data); none when defined in code */
  readonly stored?: StoredOrigin;
  readonly mode: TeamMode;
  readonly members: readonly Component[];
  readonly db?: Db;
  readonly heartbeatSeconds: number;
  readonly determineInputForMembers: boolean;
  readonly streamMemberEvents: boolean;
  readonly maxIterations: number;
  private readonly leader: TeamLeader;
  private readonly opts: TeamOptions;
  /** the state of this team's runs in flight, by run id (shared by every binding of the team) */
  private readonly runs: Map<string, TeamRunState>;

  constructor(opts: TeamOptions) {
    const mode = opts.mode ?? (opts.respondDirectly ? "route" : opts.delegateToAllMembers ? "broadcast" : "coordinate");
    if (!TEAM_MODES.includes(mode)) throw new TypeError(`mode must be one of ${TEAM_MODES.join(", ")}`);
    if (!Array.isArray(opts.members)) throw new TypeError("members must be a list of agents and teams");
    const ids = opts.members.map(memberId);
    const twice = ids.find((id, i) => ids.indexOf(id) !== i);
    if (twice) throw new TypeError(`two members have the id ${twice}: give them distinct ids`);
    this.maxIterations = opts.maxIterations ?? 10;
    if (!Number.isInteger(this.maxIterations) || this.maxIterations < 1)
      throw new TypeError("maxIterations must be a whole number >= 1");
    this.opts = opts;
    this.mode = mode;
    this.members = [...opts.members];
    this.determineInputForMembers = opts.determineInputForMembers ?? true;
    this.streamMemberEvents = opts.streamMemberEvents ?? true;
    this.runs = new Map();
    const teamTools = this.teamTools(opts.getMemberInformationTool === true);
    const {
      members: _members,
      mode: _mode,
      respondDirectly: _rd,
      delegateToAllMembers: _dtam,
      determineInputForMembers: _difm,
      maxIterations: _mi,
      getMemberInformationTool: _gmit,
      streamMemberEvents: _sme,
      shareMemberInteractions: _smi,
      ...agentOpts
    } = opts;
    const own = opts.instructions;
    const context = teamContext(this.members, mode, opts.getMemberInformationTool === true);
    this.leader = new TeamLeader(
      {
        ...agentOpts,
        id: opts.id ?? slug(opts.name) ?? "team",
        tools: [...(opts.tools ?? []), ...teamTools],
        instructions: async (ctx: RunContext) => {
          const raw = typeof own === "function" ? await own(ctx) : own;
          return [...(Array.isArray(raw) ? raw : raw ? [raw] : []), context].filter(Boolean);
        },
      },
      {
        toolsAfterOpened: true,
        collect: (output) => this.runs.get(output.run_id)?.collect(output) ?? [],
        followUp: (output, sessionState) => {
          const state = this.runs.get(output.run_id);
          if (this.mode !== "tasks" || !state) return { message: null };
          return nextRound(this.ref, output, sessionState, state, this.maxIterations);
        },
      },
    );
    this.id = this.leader.id;
    this.name = opts.name;
    this.description = opts.description;
    this.stored = opts.stored;
    this.db = opts.db;
    this.heartbeatSeconds = this.leader.heartbeatSeconds;
  }

  get ref(): ComponentRef {
    return { type: "team", id: this.id, name: this.name };
  }

  /** What it was built from: its options, and the leader's tools (its own and the team's), to describe it. */
  get configuration(): { options: Readonly<TeamOptions>; mode: TeamMode; tools: Tool[] } {
    return { options: this.opts, mode: this.mode, tools: this.leader.configuration.tools };
  }

  /** the leader's model */
  get model(): Model {
    return this.leader.model;
  }

  /** The same team storing through `db` (its members' runs too). */
  withDb(db: Db): Team {
    if (db === this.db) return this;
    const bound = Object.create(Team.prototype) as Team;
    Object.assign(bound, this, { db, leader: this.leader.withDb(db) });
    return bound;
  }

  /** The same team with its leader answering with `model` (a copy; the members keep their own models). */
  withModel(model: Model): Team {
    if (model === this.model) return this;
    return this.rebound(
      (leader) => leader.withModel(model) as TeamLeader,
      (m) => m,
    );
  }

  /** where the leader keeps run media (see AgentOptions.mediaStorage) */
  get mediaStorage(): MediaStorage | undefined {
    return this.leader.mediaStorage;
  }

  /** where the leader writes offloaded tool results */
  get resultStorage(): ObjectStorage | undefined {
    return this.leader.resultStorage;
  }

  /** The same team keeping run media in `storage`, its leader and the members that have none (an AgentOS hands its own). */
  withMediaStorage(storage: MediaStorage): Team {
    return this.rebound(
      (leader) => leader.withMediaStorage(storage) as TeamLeader,
      (m) =>
        hasFn(m, "withMediaStorage") && !(m as { mediaStorage?: unknown }).mediaStorage
          ? m.withMediaStorage(storage)
          : m,
    );
  }

  /** The same team writing offloaded tool results to `storage`, its leader and the members that have none. */
  withOffloadStorage(storage: ObjectStorage): Team {
    return this.rebound(
      (leader) => leader.withOffloadStorage(storage) as TeamLeader,
      (m) =>
        hasFn(m, "withOffloadStorage") && !(m as { resultStorage?: unknown }).resultStorage
          ? m.withOffloadStorage(storage)
          : m,
    );
  }

  private rebound(leader: (l: TeamLeader) => TeamLeader, member: (m: Component) => Component): Team {
    const bound = Object.create(Team.prototype) as Team;
    Object.assign(bound, this, { leader: leader(this.leader), members: this.members.map(member) });
    return bound;
  }

  /** The tools the leader gets for its mode (agno's delegation or task tools). */
  private teamTools(memberInformation: boolean): Tool[] {
    if (this.members.length === 0) return [];
    const tools =
      this.mode === "tasks"
        ? taskTools(this)
        : this.mode === "broadcast"
          ? [delegateToMembersTool(this)]
          : [delegateToMemberTool(this, this.mode === "route")];
    if (memberInformation && this.mode !== "tasks") tools.push(memberInformationTool(this));
    return tools;
  }

  /**
   * The state of the team run a tool call belongs to. A continue that forks the run into a new
   * one (agno's timeline continue) meets its run id here first: its state starts then.
   */
  stateOf(ctx: ToolContext): TeamRunState {
    let state = this.runs.get(ctx.runId);
    if (!state)
      this.runs.set(
        ctx.runId,
        (state = new TeamRunState(
          { message: "", stream: false },
          this.db,
          this.members,
          this.opts.shareMemberInteractions === true,
        )),
      );
    return state;
  }

  /**
   * Runs the team: a RunOutput (with the member runs in `member_responses`), or with
   * `stream: true` agno's team events, the members' events passed on between them.
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

  /** One team run as a component runs it: its events, and the final output as the generator's return value. */
  execute(input: ComponentRunInput): AsyncGenerator<RunEvent, RunOutput> {
    if (input.runId !== undefined && (typeof input.runId !== "string" || input.runId === ""))
      throw new ValidationError("run_id must be a non-empty string", "run_id");
    const runId = input.runId ?? crypto.randomUUID();
    if (this.runs.has(runId)) throw new ValidationError(`run ${runId} is already running`, "run_id");
    const events = this.leader.execute({ ...input, runId });
    this.runs.set(runId, new TeamRunState(input, this.db, this.members, this.opts.shareMemberInteractions === true));
    const first = this.mode === "tasks" ? (e: RunEvent) => roundStarted(this.ref, e, 1, this.maxIterations) : undefined;
    return teamEvents(events, (ids) => this.forget(runId, ids), first);
  }

  /**
   * Continues a paused team run: resolutions go to the member runs their stored requirements
   * came from, the members go on, then the leader resumes with its full history. Without
   * requirements, a finished or failed team run goes on as an agent's does (timeline options).
   */
  continueRun(runId: string, opts: ContinueOptions & { stream: true }): AsyncIterable<RunEvent>;
  continueRun(runId: string, opts: ContinueOptions & { stream?: false }): Promise<RunOutput>;
  continueRun(runId: string, opts: ContinueOptions): Promise<RunOutput> | AsyncIterable<RunEvent>;
  continueRun(runId: string, opts: ContinueOptions): Promise<RunOutput> | AsyncIterable<RunEvent> {
    const events = continueTeamRun(this, runId, opts);
    return opts.stream ? events : drain(events);
  }

  resume(runId: string, input: ComponentResumeInput): AsyncGenerator<RunEvent, RunOutput> {
    return continueTeamRun(this, runId, {
      requirements: input.resolutions as RequirementResolution[],
      approver: { isAdmin: input.isAdmin },
      stream: input.stream,
      ...(input.userId !== undefined ? { userId: input.userId } : {}),
      ...(input.clientTools ? { clientTools: input.clientTools } : {}),
    });
  }

  resumeLeader(
    runId: string,
    output: RunOutput,
    opts: ContinueOptions,
    answers?: Map<string, string>,
  ): AsyncGenerator<RunEvent, RunOutput> {
    if (this.runs.has(runId)) throw new ValidationError(`run ${runId} is already running`, "run_id");
    const state = new TeamRunState(
      { message: output.input?.input_content ?? "", stream: opts.stream === true },
      this.db,
      this.members,
      this.opts.shareMemberInteractions === true,
    );
    state.adopt(output.member_responses ?? []);
    this.runs.set(runId, state);
    const events = answers
      ? this.leader.answerHeldCalls(output, answers, opts.stream === true)
      : this.leader.continueEvents(runId, opts);
    return teamEvents(events, (ids) => this.forget(runId, ids));
  }

  /** Drops the state of a team run that is over (and of the run a continue forked it into). */
  private forget(runId: string, ids: Set<string>): void {
    this.runs.delete(runId);
    for (const id of ids) this.runs.delete(id);
  }

  /**
   * Cancels a team run from anywhere; its running members are cancelled with it, and members
   * waiting on a person too. False when it had already ended.
   */
  async cancelRun(runId: string, opts: { userId?: string } = {}): Promise<boolean> {
    const cancelled = await this.leader.cancelRun(runId, opts);
    if (cancelled && this.db) await cancelWaitingMembers(this.db, runId);
    return cancelled;
  }
}

function hasFn<K extends string>(value: object, key: K): value is Record<K, (arg: unknown) => Component> {
  return typeof (value as Record<string, unknown>)[key] === "function";
}

function slug(name: string | undefined): string | undefined {
  const s = name
    ?.toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
  return s || undefined;
}

async function drain(events: AsyncGenerator<RunEvent, RunOutput>): Promise<RunOutput> {
  for (;;) {
    const next = await events.next();
    if (next.done) return next.value;
  }
}
