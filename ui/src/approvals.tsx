import { useEffect, useState } from "preact/hooks";
import { getJson, sendJson, type Paged } from "./api.js";
import { Alert } from "./alert.js";
import { messageOf, text, when } from "./format.js";

interface Approval {
  id: string;
  run_id: string;
  session_id: string | null;
  status: string;
  tool_name: string | null;
  tool_args: unknown;
  agent_id: string | null;
  team_id: string | null;
  workflow_id: string | null;
  user_id: string | null;
  source_name: string | null;
  expires_at: number | null;
  created_at: number | null;
}

/** A pending approval: what the run wants to call and with what, and the approver's decision with a reason. */
function ApprovalCard(props: { approval: Approval; onResolved: () => void }) {
  const a = props.approval;
  const [reason, setReason] = useState("");
  const [error, setError] = useState<string | undefined>();
  const resolve = (status: "approved" | "rejected") =>
    void sendJson("POST", `/approvals/${encodeURIComponent(a.id)}/resolve`, {
      status,
      ...(reason.trim() && { reason: reason.trim() }),
    }).then(props.onResolved, (e: unknown) => setError(messageOf(e)));
  const id = `reason-${a.id}`;
  return (
    <li class="card">
      <h2>
        Tool <code>{a.tool_name ?? "?"}</code> · {a.source_name ?? a.agent_id ?? a.team_id ?? a.workflow_id ?? ""}
      </h2>
      <pre aria-label="Arguments">{text(a.tool_args ?? {})}</pre>
      <p class="meta">
        Run {a.run_id} · requested by {a.user_id ?? "anonymous"} · {when(a.created_at)}
        {a.expires_at && ` · expires ${when(a.expires_at)}`}
      </p>
      <div class="field">
        <label for={id}>Reason (optional)</label>
        <input id={id} maxLength={1000} value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
      </div>
      <div class="actions">
        <button type="button" onClick={() => resolve("approved")}>
          Approve
        </button>
        <button type="button" class="secondary" onClick={() => resolve("rejected")}>
          Reject
        </button>
      </div>
      <Alert message={error} />
    </li>
  );
}

/** Approvals: the pending ones, newest first; a decision continues its run in the background. */
export function Approvals() {
  const [approvals, setApprovals] = useState<Approval[] | undefined>();
  const [count, setCount] = useState<number | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [reloads, setReloads] = useState(0);
  useEffect(() => {
    Promise.all([
      getJson<Paged<Approval>>("/approvals?status=pending&limit=100"),
      getJson<{ count: number }>("/approvals/count"),
    ]).then(
      ([page, c]) => {
        setApprovals(page.data);
        setCount(c.count);
      },
      (e: unknown) => setError(messageOf(e)),
    );
  }, [reloads]);
  return (
    <section class="ops" aria-label="Approvals">
      <div class="toolbar">
        <p role="status">{count === undefined ? "" : `${count} pending`}</p>
        <button type="button" class="secondary" onClick={() => setReloads((n) => n + 1)}>
          Refresh
        </button>
      </div>
      <Alert message={error} />
      {approvals === undefined ? (
        !error && <p>Loading…</p>
      ) : approvals.length === 0 ? (
        <p class="hint">Nothing waits for a decision.</p>
      ) : (
        <ul class="cards">
          {approvals.map((a) => (
            <ApprovalCard key={a.id} approval={a} onResolved={() => setReloads((n) => n + 1)} />
          ))}
        </ul>
      )}
    </section>
  );
}
