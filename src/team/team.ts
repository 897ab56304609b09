import type { RunContext, RunOptions } from "../agent/agent.js";
import type { Component, ComponentRef, ComponentRunInput } from "../agent/component.js";
import type { RunEvent } from "../agent/events.js";
import type { RunOutput } from "../agent/run-output.js";
import type { Db } from "../db/port.js";
import { ValidationError } from "../errors.js";
import type { Model } from "../models/model.js";
import type { Tool, ToolContext } from "../tools/tool.js";
import { delegateToMemberTool, delegateToMembersTool, memberInformationTool } from "./delegate-tools.js";
import { memberId } from "./member-id.js";
import { TaskList } from "./task-list.js";
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
export class Team implements Component, TeamToolHost {
  readonly id: string;
  readonly name?: string;
  readonly description?: string;
  readonly mode: TeamMode;
  readonly members: readonly Component[];
  readonly db?: Db;
  readonly heartbeatSeconds: number;
  readonly determineInputForMembers: boolean;
  readonly streamMemberEvents: boolean;
  readonly maxIterations: number;
  private readonly leader: TeamLeader;
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
        followUp: (output, state) => (this.mode === "tasks" ? this.nextRound(output.run_id, state) : null),
      },
    );
    this.id = this.leader.id;
    this.name = opts.name;
    this.description = opts.description;
    this.db = opts.db;
    this.heartbeatSeconds = this.leader.heartbeatSeconds;
  }

  get ref(): ComponentRef {
    return { type: "team", id: this.id, name: this.name };
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

  stateOf(ctx: ToolContext): TeamRunState {
    const state = this.runs.get(ctx.runId);
    if (!state) throw new Error(`team run ${ctx.runId} is not running here`);
    return state;
  }

  /**
   * `tasks` mode: after the leader answered, another round with the task list's state, until the
   * goal is marked complete, every task ended well, or the rounds run out (agno's task loop).
   */
  private nextRound(runId: string, sessionState: Record<string, unknown>): string | null {
    const state = this.runs.get(runId);
    if (!state) return null;
    state.rounds++;
    if (state.rounds >= this.maxIterations) return null;
    const list = TaskList.load(sessionState);
    if (list.goalComplete) return null;
    if (list.allTerminal() && !list.tasks.some((t) => t.status === "failed")) return null;
    return (
      `<current_task_state>\n${list.summary()}\n</current_task_state>\n\n` +
      "Continue working on the tasks. Create, execute, or update tasks as needed. " +
      "When all tasks are done, call `mark_all_complete` with a summary."
    );
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
    this.runs.set(runId, new TeamRunState(input, this.db));
    return teamEvents(events, runId, () => this.runs.delete(runId));
  }

  /** Cancels a team run from anywhere; its running members are cancelled with it. False when it had already ended. */
  cancelRun(runId: string, opts: { userId?: string } = {}): Promise<boolean> {
    return this.leader.cancelRun(runId, opts);
  }
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
