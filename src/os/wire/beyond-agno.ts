/**
 * Every field agno-edge answers beyond agno's own response models, with the reason: the one
 * place such a field may be declared. `agnoObject` refuses an extra field that is not listed here,
 * the conformance suite refuses a listed one that no response declares, and the OpenAPI document
 * shows each reason beside its field.
 *
 * Where an answer differs from agno's in shape rather than by a field, it is noted here too:
 * - A 422 (input that fails validation) is `{detail, error_id: "validation_error", error_type}`
 *   with `detail` a sentence naming the field, where agno answers FastAPI's
 *   `{detail: [{type, loc, msg, input}, …]}`: every error here has the one body, so a client
 *   reads `detail` as text whatever the status.
 * - `GET /info`'s `auth_mode` is `security_key` while the deployment accepts no credentials at
 *   all (none configured, or wrong settings): agno's three values have none for a closed OS.
 * - A workflow step requirement decided by its HumanReview's `on_timeout` carries
 *   `timed_out: true`, so a reader tells a deadline's decision from a person's; and the cron tick
 *   applies `on_timeout` with no request (agno applies it only when someone continues).
 * - A workflow's continue also takes `error_requirements` (agno's ErrorRequirement decisions),
 *   which agno's HTTP continue does not accept; a HumanReview without `onError` still fails the
 *   run when its step fails, where agno's default review skips the step.
 * - `/workflows/ws`: `reconnect` always names its `workflow_id` (agno asks for it only under user
 *   isolation) so a run is looked up within its workflow; error frames carry `error_id` beside
 *   agno's `error`; a socket that has not authenticated is closed (4001) after five failed
 *   `authenticate` messages or 30 s; `reconnect` to a run that was never streamed answers an
 *   error frame rather than an empty replay.
 * - `/memories`: deleting an unknown (or another user's) memory is a 404 where agno answers 204,
 *   and `DELETE /memories` is all or nothing (one such id: 404, nothing deleted); `PATCH` changes
 *   only the text and topics (agno's upsert also blanks `agent_id`, `team_id` and `input`) and
 *   never moves a memory to the `user_id` it names (404); `search_content` is taken literally
 *   (`%`, `_`) and `topics` matches whole topics; `/memory_topics` is sorted; the manager's
 *   `clear_memory` clears the one user's memories (agno's clears the table).
 * - `/learnings`: a write under an id another owner's row holds is refused (409) instead of
 *   overwriting it; a PATCH or DELETE that loses a race with the agent's own delete is 404
 *   (agno: 500); `table` must be the learnings table its database names (else 404), as one
 *   database here keeps one learnings table.
 * - Learning (src/learn): an `always` store extracts with one structured (JSON) model answer
 *   where agno gives the extraction model add/update/delete tools; the decision log recalls the
 *   run's own user's decisions only (agno recalls every user's decisions of the agent into each
 *   prompt); session_context, learned_knowledge and the `propose`/`hitl` modes are not offered.
 * - `/knowledge`: `GET /knowledge/content/{id}/status` of an unknown (or another user's) content
 *   is a 404 like every other content route, where agno answers 200 `{status: "failed",
 *   status_message: "Content not found"}`; an upload is one content (one URL, one file or one
 *   text), and `file`, `text_content` and `url` together are a 422; an unknown `config_id` on
 *   `POST /knowledge/remote-content` is agno's 400, since no remote source type (S3, GCS,
 *   SharePoint, GitHub) is implemented; `knowledge_id` is the knowledge base's own `id`, which
 *   `/config`'s `knowledge_instances` list, not agno's hash of database, table and name.
 * - Knowledge: a run without a user searches the shared contents only (agno searches every
 *   user's then), so an anonymous run never reads what a user uploaded for themselves.
 * - `/traces`: `limit` is at most 100 on `GET /traces` and `/trace_session_stats` (agno: unbounded)
 *   and `page` starts at 1 (agno's list takes 0 and answers nothing); a search filter's value must
 *   suit its column (a number for `duration_ms`, an ISO time for the time columns, where agno
 *   compares an unparsable time as text) and `CONTAINS`/`STARTSWITH` on `duration_ms` is a 400
 *   (agno's Postgres fails the query: 500).
 * - `/approvals`: resolving also continues the paused run, as a `run_continue` job on the durable
 *   queue (agno records the decision and leaves the continue to a client); the resolve body also
 *   takes `reason`, kept as `resolution_data.reason`; a pending approval past `expires_at` is
 *   marked `expired` by the next read (agno never expires one); deleting an unknown approval is a
 *   404 where agno answers 500; `run_status` is the run's status read with the row.
 * - The chat interfaces' webhooks (`/slack/*`, `/telegram/webhook`, `/whatsapp/webhook`) are public
 *   routes that authenticate the platform's signature or secret token themselves: the OpenAPI
 *   document marks each with `x-authenticated-by` naming that proof, where agno's shows them as
 *   plain public routes. A Slack retry (`X-Slack-Retry-Num`) is deduplicated by the message, not
 *   dropped as agno drops it; Telegram has no development-mode bypass of its secret check.
 * - `/models/xai/login` (start, poll, status, sign-out) is agno-edge's: agno signs a user in to
 *   SuperGrok from Python (`XAITokenManager.login`), which a browser or a bot cannot call; here a
 *   user signs in over HTTP, each into their own slot of agno's `agno_auth_tokens` table.
 * - `GET /databases` is agno-edge's: each database's recorded schema version, the version this
 *   build writes, and whether it needs `POST /databases/{db_id}/migrate` (agno's clients migrate
 *   blind); the console's migration view reads it.
 * - `GET /audit` (admins only) and the audit trail behind it are agno-edge's own: agno 3.0 keeps no
 *   record of who changed a component, a config, an approval, a service account, a schedule or a
 *   database's schema. Issue 22 asks for one, so every such write appends a row (principal,
 *   action, resource, version before and after, time) to `agno_audit_log`, and admins page
 *   through it; its answer is `AuditLogEntry` rows in agno's pagination envelope.
 * - Service accounts: a key is looked up in the database on every request (no verification
 *   cache), so a revocation holds from the next request in every isolate, where agno's per-process
 *   cache lets other workers accept a revoked key for up to its TTL. agno's failed-lookup limiter
 *   (429 after many bad keys from one address) is not kept: a Worker has no per-process memory to
 *   hold it in, and a key is 32 random bytes, so guessing one is not a threat a limiter answers.
 * - `/components`: `GET /components` also filters by `stage` (published: has a current version;
 *   draft: has none), which the issue's Studio listing asks for; a stale guard is a 409 with
 *   `error_id: "version_conflict"` (agno's StudioTools code for it; agno's HTTP 409 carries no id)
 *   and the other catalog refusals carry `component_archived` / `dependency_conflict`; a config
 *   is checked against the deployment's registry at write time (an unknown tool, a model not
 *   allowed, a missing member, a member cycle: one 422 naming each), where agno finds most of
 *   these only when the component is loaded; a link pointing back at its own parent is refused.
 *   `GET /registry` lists models, tools, knowledge bases and code components (no databases,
 *   vector dbs, schemas, functions or managers: the deployment registers none).
 * - `/metrics`: each day's `token_metrics` and each `model_metrics` entry also carry `cost`, the
 *   summed `metrics.cost` of the runs (the issue asks for cost by model; agno counts runs per model
 *   only). Tokens are summed from the runs' own `metrics`, which agno sums into the session's
 *   `session_metrics`; the day of a bucket is its session's creation day, as agno's. A refresh
 *   recounts the days whose sessions or runs were written since the last refresh (and days counted
 *   before they ended), where agno recounts from the first incomplete day through today and never
 *   recounts a completed day, so a run added later to an old session is counted here and lost
 *   there; a recounted day drops the bucket of an owner whose sessions are gone. The cron tick
 *   refreshes every minute instead of agno's read-time refresh (at most once a minute per process).
 *   An `ending_date` before `starting_date` is a 400 (agno answers an empty list). A synchronous
 *   refresh that starts while another runs on the same database waits for it (a Postgres lock)
 *   rather than answering `already_running`; `background=true` answers 202 `already_running` while
 *   this isolate runs one. The refresh status is per isolate, as agno's is per process.
 * - CORS: agno's origins are allowed together with the configured ones (AGNO_CORS_ORIGINS,
 *   `corsOrigins`), where agno's `cors_allowed_origins` replaces its defaults; the exposed headers
 *   are named (`Retry-After`, `Content-Disposition`) where agno sends `*`, which browsers take
 *   literally on a request with credentials; a preflight is answered 204 (Starlette: 200) and one
 *   from an origin not allowed is not answered as a preflight at all (Starlette: 400), so it gets
 *   the 401 of an unauthenticated request; WebSocket upgrades are left to the sockets' own auth.
 * - `GET /ws` (agno-edge's own socket) also authenticates with agno's workflow-socket
 *   `authenticate` message; its frames keep /ws's shape (`{event: "error", detail, error_id:
 *   "unauthorized"}` for a refusal, `{event: "authenticated", user_id}`), and a user already
 *   holding their share of sockets is closed with 4029 once the message names them.
 * - `/eval-runs`: `POST /eval-runs?background=true` is agno-edge's (agno runs every eval in the
 *   request): it answers 202 with the AcceptedRunResponse a background run answers, `run_id` and
 *   `job_id` both the eval run's id (`session_id` empty: an eval has none), and the durable queue
 *   runs the eval as an `eval_run` job, because an eval makes several model calls per iteration and
 *   can outlast a request. A schedule's endpoint may be `/eval-runs` (agno's scheduler calls any
 *   endpoint over HTTP; here it queues the eval itself), its payload an EvalRunInput checked when the
 *   schedule is written. The named model (`model_provider`, `model_id`) is made through
 *   `defaultModelRegistry` and its id is kept as written (agno lower-cases it), and a provider that
 *   is not registered is a 400. Without a named model the component's own model judges (agno's
 *   default judge is OpenAI's o4-mini).
 */
export interface BeyondAgno {
  /** agno's response model the field is added to (its class name in agno's `os/schema.py` or router) */
  model: string;
  field: string;
  reason: string;
}

export const BEYOND_AGNO: readonly BeyondAgno[] = [
  {
    model: "TeamRunOutput",
    field: "updated_at",
    reason: "when the run's stored row last changed, so a poller tells a run that progresses from one that stalled",
  },
  {
    model: "TeamRunOutput",
    field: "error",
    reason: "why a run ended in ERROR (its public message and type), which agno only streams as a TeamRunError event",
  },
  {
    model: "TeamRunOutput",
    field: "memory_update_error",
    reason: "why the run's memories were not stored when that failed but the run itself succeeded",
  },
  {
    model: "WorkflowRunOutput",
    field: "updated_at",
    reason: "when the run's stored row last changed, so a poller tells a run that progresses from one that stalled",
  },
  {
    model: "WorkflowRunOutput",
    field: "error",
    reason: "why a run ended in ERROR (its public message and type), which agno only streams as a WorkflowError event",
  },
  {
    model: "HealthResponse",
    field: "databases",
    reason: "each database's state, so a load balancer or an operator sees a database outage without credentials",
  },
  {
    model: "HealthResponse",
    field: "detail",
    reason: "while the deployment's settings are wrong, which settings, so the operator can fix them",
  },
  {
    model: "RunOutput",
    field: "updated_at",
    reason: "when the run's stored row last changed, so a poller tells a run that progresses from one that stalled",
  },
  {
    model: "RunOutput",
    field: "error",
    reason: "why a run ended in ERROR (its public message and type), which agno only streams as a RunError event",
  },
  {
    model: "RunOutput",
    field: "memory_update_error",
    reason: "why the run's memories were not stored when that failed but the run itself succeeded",
  },
  {
    model: "CancelAgentRunResponse",
    field: "run_id",
    reason: "the run the cancel was for, where agno answers an empty object",
  },
  {
    model: "CancelAgentRunResponse",
    field: "cancelled",
    reason: "whether the run was still going when cancelled (false: it had already ended)",
  },
  {
    model: "AcceptedRunResponse",
    field: "job_id",
    reason: "the queue job that carries the background run, to follow it at /queue/jobs/{job_id}",
  },
];

/** The reason `field` of `model` is answered beyond agno's, if it is listed. */
export function beyondAgnoReason(model: string, field: string): string | undefined {
  return BEYOND_AGNO.find((b) => b.model === model && b.field === field)?.reason;
}
