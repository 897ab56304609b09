import { useEffect, useState } from "preact/hooks";
import { getJson, HttpError, sendJson, type Paged } from "./api.js";
import { Alert } from "./alert.js";
import { Confirm } from "./confirm.js";
import { messageOf, when } from "./format.js";

interface Job {
  id: string;
  job_type: string;
  component_type: string;
  component_id: string;
  status: string;
  attempt: number;
  max_attempts: number;
  error: string | null;
  created_at: number | null;
  updated_at: number | null;
  completed_at: number | null;
}

const STATUSES = ["queued", "running", "completed", "failed", "cancelled"] as const;
const PAGE_SIZE = 20;
/** The admin routes' refusal, said plainly. */
const failure = (e: unknown) =>
  e instanceof HttpError && e.status === 403
    ? "Only an administrator may see the queue: this credential lacks the agent_os:admin scope."
    : messageOf(e);

/** One job and, while it can, its cancel (queued, running) or requeue (failed, cancelled), each asked once more. */
function JobCard(props: { job: Job; onChanged: () => void }) {
  const j = props.job;
  const [asking, setAsking] = useState<"cancel" | "requeue" | undefined>();
  const [error, setError] = useState<string | undefined>();
  const act = (verb: "cancel" | "requeue") =>
    void sendJson("POST", `/queue/jobs/${encodeURIComponent(j.id)}/${verb}`).then(
      () => {
        setAsking(undefined);
        props.onChanged();
      },
      (e: unknown) => setError(failure(e)),
    );
  return (
    <li class="card" data-status={j.status}>
      <h2>
        {j.job_type} · {j.component_type} {j.component_id}
      </h2>
      <p class="meta">
        <strong>{j.status}</strong> · attempt {j.attempt} of {j.max_attempts} · created {when(j.created_at)}
        {j.completed_at ? ` · ended ${when(j.completed_at)}` : j.updated_at ? ` · updated ${when(j.updated_at)}` : ""}
      </p>
      <p class="meta">Job {j.id}</p>
      {j.error && <pre class="error">{j.error}</pre>}
      <div class="actions">
        {(j.status === "queued" || j.status === "running") && (
          <button type="button" class="secondary" onClick={() => setAsking("cancel")}>
            Cancel job…
          </button>
        )}
        {(j.status === "failed" || j.status === "cancelled") && (
          <button type="button" class="secondary" onClick={() => setAsking("requeue")}>
            Requeue…
          </button>
        )}
      </div>
      {asking && (
        <Confirm
          label={asking === "cancel" ? "Cancel this job?" : "Requeue this job?"}
          action={asking === "cancel" ? "Cancel job" : "Requeue job"}
          onConfirm={() => act(asking)}
          onCancel={() => setAsking(undefined)}
        >
          {asking === "cancel"
            ? "A queued job never runs; a running one's run is asked to stop."
            : "The job gets exactly one more attempt."}
        </Confirm>
      )}
      <Alert message={error} />
    </li>
  );
}

/** Jobs: the durable queue's jobs by status, a page at a time, with the counts of each status. */
export function Jobs() {
  const [status, setStatus] = useState("");
  const [page, setPage] = useState(1);
  const [jobs, setJobs] = useState<Paged<Job> | undefined>();
  const [counts, setCounts] = useState<Record<string, number>>({});
  const [error, setError] = useState<string | undefined>();
  const [reloads, setReloads] = useState(0);
  useEffect(() => {
    const params = new URLSearchParams({ limit: String(PAGE_SIZE), page: String(page) });
    if (status) params.set("status", status);
    Promise.all([
      getJson<Paged<Job>>(`/queue/jobs?${params}`),
      getJson<{ counts: Record<string, number> }>("/queue/stats"),
    ]).then(
      ([list, stats]) => {
        setError(undefined);
        setJobs(list);
        setCounts(stats.counts);
      },
      (e: unknown) => setError(failure(e)),
    );
  }, [status, page, reloads]);
  const pages = jobs?.meta.total_pages ?? 0;
  return (
    <section class="ops" aria-label="Jobs">
      <div class="toolbar">
        <label for="job-status">Status</label>
        <select
          id="job-status"
          value={status}
          onChange={(e) => {
            setStatus(e.currentTarget.value);
            setPage(1);
          }}
        >
          <option value="">All</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s} ({counts[s] ?? 0})
            </option>
          ))}
        </select>
        <button type="button" class="secondary" onClick={() => setReloads((n) => n + 1)}>
          Refresh
        </button>
      </div>
      <p class="meta" aria-label="Queue counts">
        {STATUSES.map((s) => `${s}: ${counts[s] ?? 0}`).join(" · ")}
      </p>
      <Alert message={error} />
      {jobs === undefined ? (
        !error && <p>Loading…</p>
      ) : jobs.data.length === 0 ? (
        <p class="hint">No jobs.</p>
      ) : (
        <ul class="cards">
          {jobs.data.map((j) => (
            <JobCard key={`${j.id}-${j.status}-${j.attempt}`} job={j} onChanged={() => setReloads((n) => n + 1)} />
          ))}
        </ul>
      )}
      {pages > 1 && (
        <nav class="actions" aria-label="Job pages">
          <button type="button" class="secondary" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Previous
          </button>
          <span>
            Page {page} of {pages}
          </span>
          <button type="button" class="secondary" disabled={page >= pages} onClick={() => setPage(page + 1)}>
            Next
          </button>
        </nav>
      )}
    </section>
  );
}
