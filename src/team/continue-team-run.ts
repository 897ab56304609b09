import type { ContinueOptions } from "../agent/agent.js";
import { identityOf, ownsRun, type Component, type ComponentRef } from "../agent/component.js";
import type { RunEvent } from "../agent/events.js";
import { applyResolutions, requirementResolution } from "../agent/hitl.js";
import type { RunOutput } from "../agent/run-output.js";
import type { Db } from "../db/port.js";
import type { RunRecord } from "../db/types.js";
import { BadRequestError, NotConfiguredError, NotFoundError, ValidationError } from "../errors.js";
import { nowSeconds } from "../time.js";
import { memberName } from "./member-id.js";
import { memberAnswer, memberRequirements } from "./run-member.js";
import type { TeamMode } from "./team-mode.js";
import { addMemberMetrics, replaceMemberMetrics } from "./team-metrics.js";

/** A member that can go on after a pause: an Agent or a Team. */
type Continuable = Component & {
  continueRun(runId: string, opts: ContinueOptions & { stream: true }): AsyncIterable<RunEvent>;
};

/** What continuing a team run needs of its team. */
export interface ContinueHost {
  readonly ref: ComponentRef;
  readonly members: readonly Component[];
  readonly db?: Db;
  readonly mode: TeamMode;
  /**
   * The leader's continue of the run, its events named as the team's, with the run's state
   * registered; with `answers`, the held delegate calls (by tool call id) are answered with them first.
   */
  resumeLeader(
    runId: string,
    output: RunOutput,
    opts: ContinueOptions,
    answers?: Map<string, string>,
  ): AsyncGenerator<RunEvent, RunOutput>;
}

/** How deep member runs may nest under a team run when a requirement is routed back up. */
const MAX_DEPTH = 16;

/**
 * The member run directly under `teamRunId` that `runId` belongs to (itself, or the sub-team run
 * it is nested in), read from the stored rows: routing never trusts what the client sends.
 */
async function directChild(db: Db, runId: string, teamRunId: string): Promise<string> {
  let id: string | null = runId;
  for (let depth = 0; id && depth < MAX_DEPTH; depth++) {
    const row = await db.getRun(id);
    if (!row) break;
    if (row.parent_run_id === teamRunId) return id;
    id = row.parent_run_id;
  }
  throw new NotFoundError(`member run ${runId} is not part of team run ${teamRunId}`);
}

/**
 * Continues a team run paused by its members: each resolution goes to the member run its stored
 * requirement came from (a sub-team passes it on to its own member), which goes on where it
 * stopped. While a member still waits, the team run stays PAUSED with what it waits on; once none
 * does, the leader resumes with its full transcript, the members' answers in place of the
 * "requires human input" notes, instead of planning again. A team run paused by the leader's own
 * tools, or with nothing to resolve, continues as an agent's run does.
 */
export async function* continueTeamRun(
  host: ContinueHost,
  runId: string,
  opts: ContinueOptions,
): AsyncGenerator<RunEvent, RunOutput> {
  const db = host.db;
  if (!db) throw new NotConfiguredError("continuing a team run needs the team to have a db");
  const resolutions = (opts.requirements ?? []).map((r, i) => {
    const parsed = requirementResolution.safeParse(r);
    if (!parsed.success)
      throw new ValidationError(`requirements[${i}]: ${parsed.error.issues[0]?.message}`, `requirements.${i}`);
    return parsed.data;
  });
  const row = await db.getRun(runId, opts.userId !== undefined ? { userId: opts.userId } : {});
  if (!row || !ownsRun(host.ref, row.run_data)) throw new NotFoundError(`run ${runId} not found`);
  const output = row.run_data as unknown as RunOutput;
  const requirements = output.requirements ?? [];
  const fromMembers = requirements.filter((r) => r.member_run_id);
  if (row.status !== "PAUSED" || fromMembers.length === 0) return yield* host.resumeLeader(runId, output, opts);
  if (fromMembers.length !== requirements.length)
    throw new BadRequestError(
      `run ${runId} waits on its members and on its own tools at once, which cannot be continued together`,
    );
  const t = opts.timeline ?? {};
  if (t.fork || t.regenerate || t.input || (t.continueFrom ?? "end") !== "end")
    throw new ValidationError(
      "input, fork, regenerate and continue_from go on a run without pending requirements: resolve them first",
      "requirements",
    );
  if (resolutions.length === 0)
    throw new BadRequestError(`run ${runId} waits on requirements: send the resolved tools or requirements`);
  // Checked (ids, kinds, admin-only) against the stored requirements before any member moves.
  applyResolutions(requirements, resolutions, opts.approver ?? { isAdmin: false });

  const childOf = new Map<string, string>();
  for (const r of requirements) childOf.set(r.id, await directChild(db, r.member_run_id!, runId));
  const groups = new Map<string, typeof resolutions>();
  for (const res of resolutions) {
    const child = childOf.get(res.id)!;
    groups.set(child, [...(groups.get(child) ?? []), res]);
  }

  const results: string[] = [];
  /** route mode: the delegate calls whose member answered, with that answer (it ends the team run) */
  const routed = new Map<string, string>();
  for (const [childRunId, group] of groups) {
    const childRow = (await db.getRun(childRunId))!;
    const member = host.members.find((m) => ownsRun(m.ref, childRow.run_data)) as Continuable | undefined;
    if (!member || typeof member.continueRun !== "function")
      throw new NotFoundError(`member run ${childRunId} belongs to no member of this team`);
    const bound = (member.db !== db ? member.withDb(db) : member) as Continuable;
    const events = bound.continueRun(childRunId, {
      requirements: group,
      stream: true,
      ...(opts.userId !== undefined ? { userId: opts.userId } : {}),
      ...(opts.approver ? { approver: opts.approver } : {}),
      // The member's continue is in the continuing request's trace, beside the leader's resumed run.
      ...(opts.trace ? { trace: opts.trace } : {}),
    });
    for await (const event of events) yield { ...event, parent_run_id: event.parent_run_id ?? runId };
    const after = (await db.getRun(childRunId))!.run_data as unknown as RunOutput;
    const responses = output.member_responses ?? [];
    const at = responses.findIndex((r) => r.run_id === childRunId);
    if (at >= 0) {
      replaceMemberMetrics(output.metrics, responses[at]!, after);
      responses[at] = after;
    } else {
      addMemberMetrics(output.metrics, after);
      responses.push(after);
    }
    output.member_responses = responses;
    output.requirements = output.requirements.filter((r) => childOf.get(r.id) !== childRunId);
    if (after.status === "PAUSED") output.requirements.push(...memberRequirements(member, after));
    else if (host.mode === "route" && after.status === "COMPLETED") {
      const call = output.tools.find((t) => t.child_run_id === childRunId && waitedOnPerson(t.result));
      if (call) routed.set(call.tool_call_id, memberAnswer(member, after));
    }
    if (after.status !== "PAUSED")
      results.push(
        `[${memberName(member)}]: ${after.content === undefined || after.content === null ? "Task completed" : typeof after.content === "string" ? after.content : JSON.stringify(after.content)}`,
      );
  }

  if (output.requirements.some((r) => !r.resolved)) {
    output.updated_at = nowSeconds();
    await db.upsertRun(output as unknown as RunRecord, { expectStatus: ["PAUSED"] });
    yield {
      event: "TeamRunPaused",
      run_id: runId,
      session_id: output.session_id,
      ...identityOf(host.ref),
      created_at: nowSeconds(),
      tools: output.tools,
      requirements: output.requirements,
    };
    return output;
  }
  output.requirements = [];
  if (routed.size > 0) {
    // Route mode: the member's answer is the team's, as it would have been without the pause. The
    // note in its place goes, and the held call is answered again, which ends the run.
    output.messages = output.messages.filter((m) => !(m.role === "tool" && routed.has(m.tool_call_id ?? "")));
    for (const t of output.tools) if (routed.has(t.tool_call_id)) t.result = null;
  } else answerPausedCalls(output, results);
  output.updated_at = nowSeconds();
  await db.upsertRun(output as unknown as RunRecord, { expectStatus: ["PAUSED"] });
  return yield* host.resumeLeader(runId, output, { ...opts, requirements: [] }, routed.size > 0 ? routed : undefined);
}

/** The note a paused member left in the leader's transcript (agno matches it the same way). */
const waitedOnPerson = (text: unknown) => typeof text === "string" && /requires human input/i.test(text);

/** The delegate calls that said a member waits on a person now carry what the members answered. */
function answerPausedCalls(output: RunOutput, results: string[]): void {
  const text =
    results.length > 0
      ? ["Member results after human-in-the-loop resolution:", ...results].join("\n")
      : "The delegated task has been completed.";
  const ids = new Set<string>();
  for (const t of output.tools)
    if (waitedOnPerson(t.result)) {
      t.result = text;
      ids.add(t.tool_call_id);
    }
  for (const m of output.messages) if (m.role === "tool" && m.tool_call_id && ids.has(m.tool_call_id)) m.content = text;
}
