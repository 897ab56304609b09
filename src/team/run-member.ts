import { abortLocal } from "../agent/cancellation.js";
import type { Component } from "../agent/component.js";
import type { RunOutput, RunRequirement } from "../agent/run-output.js";
import type { ToolContext } from "../tools/tool.js";
import { memberId, memberName } from "./member-id.js";
import type { TeamRunState } from "./team-run-state.js";

/**
 * Runs `member` on `task` as part of the team run `ctx.runId`: in the team's session, as the
 * team's user, stored through the team's db, with `parent_run_id` set to the team run. Its events
 * go out through the team run's stream (marked with that parent id, as agno marks them); a cancel
 * of the team run cancels it. A member that pauses for a person leaves its requirements on
 * `state`, which pause the team run. Throws the team's cancellation when the team run was cancelled.
 */
export async function runMember(
  member: Component,
  task: string,
  ctx: ToolContext,
  state: TeamRunState,
  streamEvents: boolean,
): Promise<RunOutput> {
  if (ctx.signal.aborted) throw ctx.signal.reason;
  const runId = crypto.randomUUID();
  const bound = state.db && member.db !== state.db ? member.withDb(state.db) : member;
  const entry: TeamRunState["memberRuns"][number] = {
    member,
    runId,
    ...(ctx.toolCallId ? { toolCallId: ctx.toolCallId } : {}),
  };
  state.memberRuns.push(entry);
  // The member registers its run once it starts: a cancel before that is sent again on its first event.
  const cancel = () => abortLocal(runId, "cancelled");
  ctx.signal.addEventListener("abort", cancel);
  const sessionState = Object.keys(ctx.sessionState).length > 0 ? structuredClone(ctx.sessionState) : undefined;
  try {
    const events = bound.execute({
      message: state.memberInput(task),
      runId,
      sessionId: ctx.sessionId,
      ...(ctx.userId !== null ? { userId: ctx.userId } : {}),
      ...(sessionState ? { sessionState } : {}),
      dependencies: ctx.dependencies,
      ...(state.input.metadata ? { metadata: state.input.metadata } : {}),
      ...(state.input.media ? { media: state.input.media } : {}),
      parentRunId: ctx.runId,
      stream: state.input.stream,
      // The member's run nests under the team's tool call that delegated to it.
      ...(ctx.trace ? { trace: ctx.trace } : {}),
    });
    for (;;) {
      const next = await events.next();
      if (next.done) {
        entry.output = next.value;
        break;
      }
      if (ctx.signal.aborted) cancel();
      if (streamEvents) ctx.emit?.({ ...next.value, parent_run_id: next.value.parent_run_id ?? ctx.runId });
    }
  } finally {
    ctx.signal.removeEventListener("abort", cancel);
  }
  if (ctx.signal.aborted) throw ctx.signal.reason;
  const output = entry.output;
  if (output.session_state) mergeChanged(ctx.sessionState, sessionState ?? {}, output.session_state);
  if (output.status === "PAUSED") state.pending.push(...memberRequirements(member, output));
  const response =
    typeof output.content === "string" ? output.content : output.content == null ? "" : JSON.stringify(output.content);
  state.interactions.push({ member: memberName(member), task, response });
  return output;
}

/** A paused member's requirements as its team run carries them (agno's _propagate_member_pause). */
export function memberRequirements(member: Component, output: RunOutput): RunRequirement[] {
  return output.requirements
    .filter((r) => !r.resolved)
    .map((r) => ({
      ...structuredClone(r),
      member_agent_id: r.member_agent_id ?? memberId(member),
      member_agent_name: r.member_agent_name ?? member.ref.name ?? null,
      member_run_id: r.member_run_id ?? output.run_id,
    }));
}

/** The text the leader reads for a finished member run (agno's delegate tool result). */
export function memberAnswer(member: Component, output: RunOutput): string {
  if (output.status === "PAUSED") return `Member '${memberName(member)}' requires human input before continuing.`;
  if (output.status === "ERROR")
    throw new Error(`member ${memberId(member)} failed: ${String(output.content ?? "no content")}`);
  if (output.status === "CANCELLED") throw new Error(`member ${memberId(member)}'s run was cancelled`);
  const content = output.content;
  if (typeof content === "string") {
    if (content.trim()) return content.trim();
    const results = output.tools.flatMap((t) => (t.result ? [t.result] : []));
    return results.length > 0 ? results.join(",") : "No response from the member agent.";
  }
  if (content === undefined || content === null) return "No response from the member agent.";
  return JSON.stringify(content, null, 2);
}

/**
 * What the member changed in its copy of the session state becomes the team's (agno merges the
 * copy back); keys it left as they were are not written back, so members running side by side
 * (and the task list the team updates meanwhile) do not overwrite each other with stale copies.
 */
function mergeChanged(team: Record<string, unknown>, given: Record<string, unknown>, after: Record<string, unknown>) {
  for (const [key, value] of Object.entries(after))
    if (JSON.stringify(value) !== JSON.stringify(given[key])) team[key] = value;
}
