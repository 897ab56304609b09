import { z } from "zod";
import type { LearningRecord, LearningUserStats } from "../../db/port.js";
import { agnoObject } from "./agno-object.js";
import { paginated } from "./paginated.js";

/** agno serialises every field of these models (no `exclude_none`): optional ones are present as null. */
const source = (model: string) => ({ model, file: "os/routers/learnings/schema.py" });
const json = z.record(z.string(), z.unknown());

export const learningResponseSchema = agnoObject(source("LearningResponse"), {
  learning_id: z.string().describe("Unique identifier for the learning record"),
  learning_type: z.string().describe("Type of learning (e.g. 'user_profile', 'entity_memory')"),
  namespace: z.string().nullable().describe("Namespace for scoping ('user', 'global', or custom)"),
  user_id: z.string().nullable().describe("Associated user ID"),
  agent_id: z.string().nullable().describe("Associated agent ID"),
  team_id: z.string().nullable().describe("Associated team ID"),
  session_id: z.string().nullable().describe("Associated session ID"),
  entity_id: z.string().nullable().describe("Associated entity ID (for entity-specific learnings)"),
  entity_type: z.string().nullable().describe("Entity type (e.g. 'person', 'company')"),
  content: json.nullable().describe("The learning content payload"),
  metadata: json.nullable().describe("Optional metadata"),
  created_at: z.int().nullable().describe("Creation timestamp (Unix epoch seconds)"),
  updated_at: z.int().nullable().describe("Last update timestamp (Unix epoch seconds)"),
});

export const learningUserStatsSchema = agnoObject(source("LearningUserStats"), {
  user_id: z.string().describe("The user ID"),
  last_learning_updated_at: z
    .int()
    .nullable()
    .describe("Most recent learning update for this user (Unix epoch seconds)"),
});

export const paginatedLearningsSchema = paginated(learningResponseSchema);
export const paginatedLearningUsersSchema = paginated(learningUserStatsSchema);

/** A stored learning as agno's LearningResponse (its `workflow_id` column is not in agno's model). */
export function learningView(r: LearningRecord): z.infer<typeof learningResponseSchema> {
  return {
    learning_id: r.learning_id,
    learning_type: r.learning_type,
    namespace: r.namespace,
    user_id: r.user_id,
    agent_id: r.agent_id,
    team_id: r.team_id,
    session_id: r.session_id,
    entity_id: r.entity_id,
    entity_type: r.entity_type,
    content: r.content,
    metadata: r.metadata,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

export const learningUserView = (u: LearningUserStats): z.infer<typeof learningUserStatsSchema> => ({
  user_id: u.user_id,
  last_learning_updated_at: u.last_learning_updated_at,
});
