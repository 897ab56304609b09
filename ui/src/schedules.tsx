import { useEffect, useState } from "preact/hooks";
import { getJson, sendJson, type Component, type Paged } from "./api.js";
import { Alert } from "./alert.js";
import { Confirm } from "./confirm.js";
import { messageOf, when } from "./format.js";
import { ScheduleForm, type Schedule } from "./schedule-form.js";

interface ScheduleRun {
  id: string;
  attempt: number;
  triggered_at: number | null;
  completed_at: number | null;
  status: string;
  status_code: number | null;
  run_id: string | null;
  error: string | null;
}

/** A schedule's attempts, newest first. */
function History(props: { schedule: Schedule; reloads: number }) {
  const [runs, setRuns] = useState<ScheduleRun[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [ticks, setTicks] = useState(0);
  useEffect(() => {
    getJson<Paged<ScheduleRun>>(`/schedules/${encodeURIComponent(props.schedule.id)}/runs?limit=20`).then(
      (page) => setRuns(page.data),
      (e: unknown) => setError(messageOf(e)),
    );
  }, [props.schedule.id, props.reloads, ticks]);
  // While an attempt runs, the history is read again until it has ended.
  const running = runs?.some((r) => r.status === "running") ?? false;
  useEffect(() => {
    if (!running) return;
    const timer = setTimeout(() => setTicks((n) => n + 1), 1000);
    return () => clearTimeout(timer);
  }, [running, runs]);
  if (error) return <Alert message={error} />;
  if (!runs) return <p>Loading…</p>;
  if (runs.length === 0) return <p class="hint">No attempts yet.</p>;
  return (
    <ul class="history" aria-label={`History of ${props.schedule.name}`}>
      {runs.map((r) => (
        <li key={r.id} data-status={r.status}>
          {when(r.triggered_at)} · attempt {r.attempt} · <strong>{r.status}</strong>
          {r.run_id && <span class="meta"> · run {r.run_id}</span>}
          {r.error && <span class="error"> · {r.error}</span>}
        </li>
      ))}
    </ul>
  );
}

/** One schedule: what it runs and when, and what may be done to it. */
function ScheduleCard(props: { schedule: Schedule; components: Component[]; onChanged: () => void }) {
  const s = props.schedule;
  const [mode, setMode] = useState<"view" | "edit" | "delete">("view");
  const [history, setHistory] = useState(false);
  const [reloads, setReloads] = useState(0);
  const [notice, setNotice] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  const path = `/schedules/${encodeURIComponent(s.id)}`;
  const act = (verb: string, done: string) => {
    setError(undefined);
    sendJson("POST", `${path}/${verb}`).then(
      () => {
        setNotice(done);
        setReloads((n) => n + 1);
        props.onChanged();
      },
      (e: unknown) => setError(messageOf(e)),
    );
  };
  return (
    <li class="card" data-enabled={String(s.enabled)}>
      <h2>{s.name}</h2>
      <p class="meta">
        {s.endpoint} · <code>{s.cron_expr}</code> ({s.timezone}) · {s.enabled ? "enabled" : "disabled"}
        {s.next_run_at && ` · next ${when(s.next_run_at)}`}
        {s.disabled_reason && ` · ${s.disabled_reason}`}
      </p>
      {mode === "edit" ? (
        <ScheduleForm
          components={props.components}
          schedule={s}
          onSaved={() => {
            setMode("view");
            setNotice("Saved.");
            props.onChanged();
          }}
          onCancel={() => setMode("view")}
        />
      ) : (
        <div class="actions">
          <button type="button" class="secondary" onClick={() => setMode("edit")}>
            Edit
          </button>
          <button
            type="button"
            class="secondary"
            onClick={() => act(s.enabled ? "disable" : "enable", s.enabled ? "Disabled." : "Enabled.")}
          >
            {s.enabled ? "Disable" : "Enable"}
          </button>
          <button
            type="button"
            class="secondary"
            onClick={() => act("trigger", "Triggered: the attempt is in the history.")}
          >
            Run now
          </button>
          <button type="button" class="secondary" aria-expanded={history} onClick={() => setHistory(!history)}>
            History
          </button>
          <button type="button" class="secondary" onClick={() => setMode("delete")}>
            Delete…
          </button>
        </div>
      )}
      {mode === "delete" && (
        <Confirm
          label={`Delete ${s.name}?`}
          action="Delete schedule"
          onCancel={() => setMode("view")}
          onConfirm={() => void sendJson("DELETE", path).then(props.onChanged, (e: unknown) => setError(messageOf(e)))}
        >
          Delete this schedule and its history? Runs already queued still run.
        </Confirm>
      )}
      {notice && (
        <p class="hint" role="status">
          {notice}
        </p>
      )}
      <Alert message={error} />
      {history && <History schedule={s} reloads={reloads} />}
    </li>
  );
}

/** Schedules: the caller's, each with edit, enable/disable, run now, history and delete; and a form for a new one. */
export function Schedules(props: { components: Component[] }) {
  const [schedules, setSchedules] = useState<Schedule[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [reloads, setReloads] = useState(0);
  const reload = () => setReloads((n) => n + 1);
  useEffect(() => {
    getJson<Paged<Schedule>>("/schedules?limit=100").then(
      (page) => setSchedules(page.data),
      (e: unknown) => setError(messageOf(e)),
    );
  }, [reloads]);
  return (
    <section class="ops" aria-label="Schedules">
      <details class="card">
        <summary>New schedule</summary>
        <ScheduleForm components={props.components} onSaved={reload} key={reloads} />
      </details>
      <Alert message={error} />
      {schedules === undefined ? (
        <p>Loading…</p>
      ) : schedules.length === 0 ? (
        <p class="hint">No schedules yet.</p>
      ) : (
        <ul class="cards">
          {schedules.map((s) => (
            <ScheduleCard key={s.id} schedule={s} components={props.components} onChanged={reload} />
          ))}
        </ul>
      )}
    </section>
  );
}
