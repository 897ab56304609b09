/** Table names, overridable so one Postgres can host several deployments or agno's own names. */
export interface TableNames {
  sessions: string;
  runs: string;
  jobs: string;
  toolResults: string;
  memories: string;
  runEvents: string;
  schedules: string;
  scheduleRuns: string;
  learnings: string;
  /** agno's approvals table (a paused run's pending decisions) */
  approvals: string;
  /** agno's component catalog (migration 0007) */
  components: string;
  componentConfigs: string;
  componentLinks: string;
  versions: string;
  /** agno's knowledge contents table */
  knowledge: string;
  /** agno's service accounts (machine principals and their key hashes) */
  serviceAccounts: string;
  /** who changed which configuration resource, when, from which version to which */
  auditLog: string;
  /** agno's metrics buckets (per user, day and period) */
  metrics: string;
  /** agno's eval runs, one row per run of an eval */
  evals: string;
  /** agno's traces and their spans */
  traces: string;
  spans: string;
}

export const DEFAULT_TABLE_NAMES: TableNames = {
  sessions: "agno_sessions",
  runs: "agno_runs",
  jobs: "agno_jobs",
  toolResults: "agno_tool_results",
  memories: "agno_memories",
  runEvents: "agno_run_events",
  schedules: "agno_schedules",
  scheduleRuns: "agno_schedule_runs",
  learnings: "agno_learnings",
  approvals: "agno_approvals",
  components: "agno_components",
  componentConfigs: "agno_component_configs",
  componentLinks: "agno_component_links",
  versions: "agno_schema_versions",
  knowledge: "agno_knowledge",
  serviceAccounts: "agno_service_accounts",
  auditLog: "agno_audit_log",
  metrics: "agno_metrics",
  evals: "agno_eval_runs",
  traces: "agno_traces",
  spans: "agno_spans",
};

const IDENT = /^[a-z_][a-z0-9_]{0,62}$/;

/** Names end up in DDL, so only plain lower-case identifiers are accepted. */
export function checkIdentifier(name: string, what: string): string {
  if (!IDENT.test(name)) throw new TypeError(`${what} must match ${IDENT} (got ${JSON.stringify(name)})`);
  return name;
}

/** `"schema"."table"`, both checked. */
export function qualified(schema: string, table: string): string {
  return `"${checkIdentifier(schema, "schema")}"."${checkIdentifier(table, "table name")}"`;
}
