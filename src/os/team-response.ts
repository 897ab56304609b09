import { Agent } from "../agent/agent.js";
import { componentOrigin } from "./component-origin.js";
import type { Db } from "../db/port.js";
import { Team } from "../team/team.js";
import { agentResponse } from "./agent-response.js";

/**
 * agno's TeamResponse for one team (`TeamResponse.from_team`, exclude-none): what it is, its
 * leader's model, and its members, each an AgentResponse or (a nested team) a TeamResponse.
 */
export function teamResponse(team: Team, db: Db | undefined): Record<string, unknown> {
  const members = team.members.flatMap((m) =>
    m instanceof Agent ? [agentResponse(m, db)] : m instanceof Team ? [teamResponse(m, db)] : [],
  );
  return {
    id: team.id,
    ...(team.name !== undefined && { name: team.name }),
    ...(db && { db_id: db.id }),
    ...(team.description !== undefined && { description: team.description }),
    mode: team.mode,
    model: { model: team.model.id, provider: team.model.provider },
    ...(team.description !== undefined && { system_message: { description: team.description } }),
    ...(members.length > 0 && { members }),
    is_factory: false,
    ...componentOrigin(team.stored),
  };
}
