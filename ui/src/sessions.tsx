import { useEffect, useState } from "preact/hooks";
import { getJson, request, type Component } from "./api.js";
import { RunMedia, type ImageRecord } from "./run-media.js";

interface SessionRow {
  session_id: string;
  session_name?: string | null;
  agent_id?: string | null;
  team_id?: string | null;
  workflow_id?: string | null;
  created_at?: string | number | null;
  updated_at?: string | number | null;
}

interface RunRow {
  run_id: string;
  run_input?: unknown;
  content?: unknown;
  status?: string;
  created_at?: string | number;
  tools?: Array<{ tool_call_id?: string; tool_name?: string; tool_args?: unknown; result?: unknown }> | null;
  metrics?: { input_tokens?: number; output_tokens?: number; duration?: number } | null;
  images?: ImageRecord[] | null;
  input_media?: { images?: ImageRecord[] | null } | null;
}

const text = (v: unknown) => (v == null ? "" : typeof v === "string" ? v : JSON.stringify(v, null, 2));
const when = (v: unknown) => {
  if (v == null) return "";
  const date = typeof v === "number" ? new Date(v * 1000) : new Date(String(v));
  return Number.isNaN(date.getTime()) ? String(v) : date.toLocaleString();
};

/** Rename and delete for the open session; deleting asks once more in the page before it goes. */
function SessionActions(props: { session: SessionRow; onRenamed: (name: string) => void; onDeleted: () => void }) {
  const [name, setName] = useState(props.session.session_name ?? "");
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const path = `/sessions/${encodeURIComponent(props.session.session_id)}`;
  const fail = (e: Error) => setError(e.message);
  return (
    <div class="session-actions">
      <form
        class="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          const session_name = name.trim();
          if (!session_name) return;
          void request(`${path}/rename`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ session_name }),
          }).then(() => props.onRenamed(session_name), fail);
        }}
      >
        <label for="session-name">Session name</label>
        <input
          id="session-name"
          required
          maxLength={255}
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
        />
        <button type="submit">Rename</button>
        {!confirming && (
          <button type="button" class="secondary" onClick={() => setConfirming(true)}>
            Delete…
          </button>
        )}
      </form>
      {confirming && (
        <div class="confirm" role="alertdialog" aria-label="Delete this session?">
          <p>Delete this session and all its runs? This cannot be undone.</p>
          <button type="button" onClick={() => void request(path, { method: "DELETE" }).then(props.onDeleted, fail)}>
            Delete session
          </button>{" "}
          <button type="button" class="secondary" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/** Sessions: a page of them (searchable by name), one session's runs with their tool calls and metrics; rename, delete. */
export function Sessions(props: { components: Component[] }) {
  const [search, setSearch] = useState("");
  const [query, setQuery] = useState("");
  const [sessions, setSessions] = useState<SessionRow[] | undefined>();
  const [open, setOpen] = useState<SessionRow | undefined>();
  const [runs, setRuns] = useState<RunRow[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [reloads, setReloads] = useState(0);
  const nameOf = (s: SessionRow) => {
    const id = s.agent_id ?? s.team_id ?? s.workflow_id;
    return props.components.find((c) => c.id === id)?.name ?? id ?? "";
  };

  useEffect(() => {
    const params = new URLSearchParams({ limit: "50", sort_by: "updated_at" });
    if (query) params.set("session_name", query);
    getJson<{ data: SessionRow[] }>(`/sessions?${params}`).then(
      (page) => setSessions(page.data),
      (e: Error) => setError(e.message),
    );
  }, [query, reloads]);

  useEffect(() => {
    setRuns(undefined);
    if (!open) return;
    getJson<RunRow[]>(`/sessions/${encodeURIComponent(open.session_id)}/runs`).then(setRuns, (e: Error) =>
      setError(e.message),
    );
  }, [open]);

  return (
    <section class="sessions" aria-label="Sessions">
      <form
        class="toolbar"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery(search.trim());
        }}
      >
        <label for="session-search">Search sessions by name</label>
        <input id="session-search" type="search" value={search} onInput={(e) => setSearch(e.currentTarget.value)} />
        <button type="submit">Search</button>
      </form>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <div class="split">
        <nav aria-label="Session list" class="session-list">
          {sessions === undefined ? (
            <p>Loading…</p>
          ) : sessions.length === 0 ? (
            <p>No sessions yet.</p>
          ) : (
            <ul>
              {sessions.map((s) => (
                <li key={s.session_id}>
                  <button
                    type="button"
                    class="link"
                    aria-current={open?.session_id === s.session_id ? "true" : undefined}
                    onClick={() => setOpen(s)}
                  >
                    <span class="name">{s.session_name || s.session_id}</span>
                    <span class="meta">
                      {nameOf(s)} · {when(s.updated_at ?? s.created_at)}
                    </span>
                  </button>
                </li>
              ))}
            </ul>
          )}
        </nav>
        <div class="session-runs">
          {!open ? (
            <p class="hint">Open a session to see its runs.</p>
          ) : (
            <>
              <h2>{open.session_name || open.session_id}</h2>
              <SessionActions
                key={open.session_id}
                session={open}
                onRenamed={(session_name) => {
                  setOpen({ ...open, session_name });
                  setReloads((n) => n + 1);
                }}
                onDeleted={() => {
                  setOpen(undefined);
                  setReloads((n) => n + 1);
                }}
              />
              {runs === undefined ? (
                <p>Loading…</p>
              ) : (
                runs.map((r) => (
                  <article class="turn run" key={r.run_id} data-status={r.status}>
                    <h3 class="who">
                      {when(r.created_at)} · {r.status ?? ""}
                    </h3>
                    {r.run_input != null && (
                      <p>
                        <strong>Input:</strong>{" "}
                        {text((r.run_input as { input_content?: unknown }).input_content ?? r.run_input)}
                      </p>
                    )}
                    {(r.tools ?? []).map((t, i) => (
                      <details class="tool" key={t.tool_call_id ?? i}>
                        <summary>
                          Tool <code>{t.tool_name}</code>
                        </summary>
                        <pre>{text(t.tool_args)}</pre>
                        <pre>{text(t.result)}</pre>
                      </details>
                    ))}
                    <RunMedia
                      sessionId={open.session_id}
                      input={r.input_media?.images ?? undefined}
                      output={r.images ?? undefined}
                    />
                    <div class="content">{text(r.content)}</div>
                    {r.metrics && (
                      <p class="meta">
                        {r.metrics.input_tokens ?? 0} tokens in, {r.metrics.output_tokens ?? 0} out
                        {r.metrics.duration !== undefined ? `, ${r.metrics.duration.toFixed(2)} s` : ""}
                      </p>
                    )}
                  </article>
                ))
              )}
            </>
          )}
        </div>
      </div>
    </section>
  );
}
