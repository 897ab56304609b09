/** The content of a `user_profile` row. */
export interface UserProfile {
  user_id: string;
  name?: string | null;
  preferred_name?: string | null;
  agent_id?: string | null;
  team_id?: string | null;
  created_at?: string | null;
  updated_at?: string | null;
  [field: string]: unknown;
}

export interface MemoryEntry {
  id: string;
  content: string;
  created_at?: string;
  updated_at?: string;
  [field: string]: unknown;
}

/** The content of a `user_memory` row: every memory of one user. */
export interface Memories {
  user_id: string;
  memories: MemoryEntry[];
  agent_id?: string | null;
  team_id?: string | null;
  created_at?: string | null;
  updated_at?: string | null;
}

export interface EntityFact {
  id: string;
  content: string;
  created_at?: string;
  updated_at?: string;
}

export interface EntityEvent {
  id: string;
  content: string;
  date?: string | null;
  created_at?: string;
}

export interface EntityRelationship {
  entity_id: string;
  entity_type?: string;
  relation: string;
  direction: "outgoing" | "incoming";
}

/** The content of an `entity_memory` row. */
export interface EntityMemory {
  entity_id: string;
  entity_type: string;
  name?: string | null;
  description?: string | null;
  properties: Record<string, string>;
  aliases: string[];
  facts: EntityFact[];
  events: EntityEvent[];
  relationships: EntityRelationship[];
  namespace?: string | null;
  user_id?: string | null;
  agent_id?: string | null;
  team_id?: string | null;
  created_at?: string | null;
  updated_at?: string | null;
  archived_at?: string | null;
}

/** The content of a `decision_log` row: one decision, with why, and later what came of it. */
export interface DecisionLog {
  id: string;
  decision: string;
  reasoning?: string | null;
  decision_type?: string | null;
  context?: string | null;
  alternatives?: string[] | null;
  confidence?: number | null;
  outcome?: string | null;
  outcome_quality?: string | null;
  tags?: string[] | null;
  session_id?: string | null;
  run_id?: string | null;
  user_id?: string | null;
  agent_id?: string | null;
  team_id?: string | null;
  created_at?: string | null;
  updated_at?: string | null;
}
