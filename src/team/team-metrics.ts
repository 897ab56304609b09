import { emptyUsage, type TokenUsage } from "../models/model.js";
import type { RunMetrics, RunOutput } from "../agent/run-output.js";

/**
 * Adds a finished member run to its team run's metrics: the team's token and cost totals include
 * every member's (a sub-team's totals already hold its own members'), and `details.members` keeps
 * each member run's share. The leader's own model calls stay in `details.model`; durations are
 * not added up, the team's duration is its own wall time.
 */
export function addMemberMetrics(team: RunMetrics, member: RunOutput): void {
  const m = member.metrics;
  for (const key of Object.keys(emptyUsage()) as Array<keyof TokenUsage>) team[key] += m[key] ?? 0;
  if (m.cost !== undefined) team.cost = (team.cost ?? 0) + m.cost;
  team.details ??= { model: [] };
  team.details.members ??= [];
  const usage = Object.fromEntries(
    (Object.keys(emptyUsage()) as Array<keyof TokenUsage>).map((k) => [k, m[k] ?? 0]),
  ) as unknown as TokenUsage;
  team.details.members.push({
    run_id: member.run_id,
    ...(member.team_id ? { team_id: member.team_id } : { agent_id: member.agent_id }),
    name: member.team_id ? (member.team_name ?? null) : (member.agent_name ?? null),
    ...usage,
    ...(m.cost !== undefined ? { cost: m.cost } : {}),
    ...(m.duration !== undefined ? { duration: m.duration } : {}),
  });
}
