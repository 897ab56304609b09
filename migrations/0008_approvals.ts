/**
 * agno 3.0's approvals (`agno_approvals`, APPROVAL_TABLE_SCHEMA): one row per pause of a run on a
 * tool that needs an approver's decision, resolved through `/approvals`. The columns and indexes
 * are agno's, so agno and agno-edge read each other's rows.
 *
 * The row is written by a trigger on the runs table, in the statement that stores the run as
 * PAUSED: a pause and its pending approval commit together on every write path (a plain run, a
 * queued run ending its job, a batched write), and nothing can pause without leaving its
 * approval. The trigger reads what the run itself carries: each unresolved requirement whose
 * tool call is stamped with an `approval_id` (the engine stamps one id per pause, as agno does).
 * A member run of a team is skipped: its team's paused run carries the same requirements, and the
 * approval belongs to the run a resolution continues. `ON CONFLICT DO NOTHING`: a later write of
 * the same pause (a partial resolution keeping the run PAUSED) adds nothing.
 */
export const version = "3.0.7";

export const statements = [
  `CREATE TABLE IF NOT EXISTS {approvals} (
    id VARCHAR NOT NULL PRIMARY KEY,
    run_id VARCHAR NOT NULL,
    session_id VARCHAR NOT NULL,
    status VARCHAR NOT NULL,
    source_type VARCHAR NOT NULL,
    approval_type VARCHAR,
    pause_type VARCHAR NOT NULL,
    tool_name VARCHAR,
    tool_args JSONB,
    expires_at BIGINT,
    agent_id VARCHAR,
    team_id VARCHAR,
    workflow_id VARCHAR,
    user_id VARCHAR,
    schedule_id VARCHAR,
    schedule_run_id VARCHAR,
    source_name VARCHAR,
    requirements JSONB,
    context JSONB,
    resolution_data JSONB,
    resolved_by VARCHAR,
    resolved_at BIGINT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT,
    run_status VARCHAR
  )`,
  ...[
    "run_id",
    "session_id",
    "status",
    "source_type",
    "approval_type",
    "pause_type",
    "agent_id",
    "team_id",
    "workflow_id",
    "user_id",
    "schedule_id",
    "schedule_run_id",
    "created_at",
    "run_status",
  ].map((c) => `CREATE INDEX IF NOT EXISTS {approvals_idx}_${c} ON {approvals} (${c})`),
  `CREATE OR REPLACE FUNCTION {approvals_fn}() RETURNS trigger LANGUAGE plpgsql AS $fn$
  BEGIN
    INSERT INTO {approvals} (id, run_id, session_id, status, source_type, approval_type, pause_type, tool_name, tool_args,
      expires_at, agent_id, team_id, workflow_id, user_id, source_name, requirements, context, created_at, updated_at, run_status)
    SELECT DISTINCT ON (q.approval_id) q.approval_id, NEW.run_id, NEW.session_id, 'pending',
      CASE WHEN NEW.team_id IS NOT NULL THEN 'team' WHEN NEW.workflow_id IS NOT NULL THEN 'workflow' ELSE 'agent' END,
      'required', COALESCE(q.req->>'kind', 'confirmation'), q.req->'tool_execution'->>'tool_name', q.req->'tool_execution'->'tool_args',
      CASE WHEN jsonb_typeof(q.req->'approval_expires_at') = 'number' THEN trunc((q.req->>'approval_expires_at')::numeric)::bigint END,
      NEW.agent_id, NEW.team_id, NEW.workflow_id, NEW.user_id,
      CASE WHEN NEW.team_id IS NOT NULL THEN NEW.run_data->>'team_name' WHEN NEW.workflow_id IS NOT NULL THEN NEW.run_data->>'workflow_name'
        ELSE NEW.run_data->>'agent_name' END,
      NEW.run_data->'requirements',
      jsonb_strip_nulls(jsonb_build_object(
        'tool_names', (SELECT jsonb_agg(o->'tool_execution'->>'tool_name' ORDER BY n) FROM jsonb_array_elements(NEW.run_data->'requirements') WITH ORDINALITY AS e(o, n)
          WHERE o->'tool_execution'->>'approval_id' = q.approval_id),
        'source_name', CASE WHEN NEW.team_id IS NOT NULL THEN NEW.run_data->>'team_name' WHEN NEW.workflow_id IS NOT NULL THEN NEW.run_data->>'workflow_name'
          ELSE NEW.run_data->>'agent_name' END)),
      NEW.updated_at, NEW.updated_at, 'PAUSED'
    FROM (SELECT r.value AS req, r.ord, r.value->'tool_execution'->>'approval_id' AS approval_id
          FROM jsonb_array_elements(CASE WHEN jsonb_typeof(NEW.run_data->'requirements') = 'array' THEN NEW.run_data->'requirements' ELSE '[]'::jsonb END)
            WITH ORDINALITY AS r(value, ord)) AS q
    WHERE q.approval_id IS NOT NULL AND (q.req->>'resolved') IS DISTINCT FROM 'true'
    ORDER BY q.approval_id, q.ord
    ON CONFLICT (id) DO NOTHING;
    RETURN NULL;
  END
  $fn$`,
  `DROP TRIGGER IF EXISTS {approvals_trigger} ON {runs}`,
  `CREATE TRIGGER {approvals_trigger} AFTER INSERT OR UPDATE ON {runs} FOR EACH ROW
    WHEN (NEW.status = 'PAUSED' AND NEW.parent_run_id IS NULL) EXECUTE FUNCTION {approvals_fn}()`,
];

/** The tables this migration stamps in the versions table. */
export const tables = ["approvals"] as const;
