import { useEffect, useState } from "preact/hooks";
import { getJson, sendJson } from "./api.js";
import { Alert } from "./alert.js";
import { Confirm } from "./confirm.js";
import { messageOf } from "./format.js";

interface DatabaseStatus {
  db_id: string;
  schema_version: string | null;
  latest_version: string;
  state: "current" | "migration_required" | "unavailable" | "error";
}

const STATE_LABEL: Record<DatabaseStatus["state"], string> = {
  current: "current",
  migration_required: "migration required",
  unavailable: "unavailable",
  error: "error (see the server's log)",
};

/** One database's schema state and its Migrate button, asked once more. */
function DatabaseCard(props: { db: DatabaseStatus; onMigrated: () => void }) {
  const d = props.db;
  const [asking, setAsking] = useState(false);
  const [result, setResult] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  return (
    <li class="card" data-state={d.state}>
      <h2>{d.db_id}</h2>
      <p>
        Schema {d.schema_version ?? "unknown"} (this build: {d.latest_version}) ·{" "}
        <strong>{STATE_LABEL[d.state]}</strong>
      </p>
      {!asking && (
        <button
          type="button"
          class={d.state === "migration_required" ? undefined : "secondary"}
          onClick={() => setAsking(true)}
        >
          Migrate…
        </button>
      )}
      {asking && (
        <Confirm
          label={`Migrate ${d.db_id}?`}
          action="Migrate"
          onCancel={() => setAsking(false)}
          onConfirm={() => {
            setAsking(false);
            setError(undefined);
            sendJson<{ message: string }>("POST", `/databases/${encodeURIComponent(d.db_id)}/migrate`).then(
              (answer) => {
                setResult(answer.message);
                props.onMigrated();
              },
              (e: unknown) => setError(messageOf(e)),
            );
          }}
        >
          Bring {d.db_id} to schema {d.latest_version}? Migrations only add; back the database up first all the same.
        </Confirm>
      )}
      {result && <p role="status">{result}</p>}
      <Alert message={error} />
    </li>
  );
}

/** Database: each database's schema version against this build's, with a button to migrate it. */
export function Databases() {
  const [dbs, setDbs] = useState<DatabaseStatus[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [reloads, setReloads] = useState(0);
  useEffect(() => {
    getJson<DatabaseStatus[]>("/databases").then(setDbs, (e: unknown) => setError(messageOf(e)));
  }, [reloads]);
  return (
    <section class="ops" aria-label="Databases">
      <Alert message={error} />
      {dbs === undefined ? (
        !error && <p>Loading…</p>
      ) : dbs.length === 0 ? (
        <p class="hint">This AgentOS has no database.</p>
      ) : (
        <ul class="cards">
          {dbs.map((d) => (
            <DatabaseCard key={d.db_id} db={d} onMigrated={() => setReloads((n) => n + 1)} />
          ))}
        </ul>
      )}
    </section>
  );
}
