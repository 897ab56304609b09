import { useState } from "preact/hooks";
import { sendJson, type Component } from "./api.js";
import { Alert } from "./alert.js";
import { messageOf } from "./format.js";

/** A schedule as `GET /schedules` answers it (the fields the console shows or edits). */
export interface Schedule {
  id: string;
  name: string;
  description: string | null;
  endpoint: string;
  payload: Record<string, unknown> | null;
  cron_expr: string;
  timezone: string;
  enabled: boolean;
  next_run_at: number | null;
  disabled_reason: string | null;
}

const KIND_LABEL = { agents: "Agent", teams: "Team", workflows: "Workflow" } as const;

/**
 * Creates a schedule (POST /schedules) or changes one (PATCH /schedules/{id}) within the fields a
 * schedule may change: name, description, endpoint, payload, cron_expr and timezone. The server
 * checks them all; its `detail` is shown as it says it.
 */
export function ScheduleForm(props: {
  components: Component[];
  schedule?: Schedule;
  onSaved: (schedule: Schedule) => void;
  onCancel?: () => void;
}) {
  const s = props.schedule;
  const idPrefix = s ? `edit-${s.id}` : "new-schedule";
  const [name, setName] = useState(s?.name ?? "");
  const [endpoint, setEndpoint] = useState(
    s?.endpoint ?? (props.components[0] ? `/${props.components[0].kind}/${props.components[0].id}/runs` : ""),
  );
  const [message, setMessage] = useState(typeof s?.payload?.message === "string" ? s.payload.message : "");
  const [cron, setCron] = useState(s?.cron_expr ?? "0 9 * * *");
  const [timezone, setTimezone] = useState(s?.timezone ?? "UTC");
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const targets = props.components.map((c) => ({
    value: `/${c.kind}/${c.id}/runs`,
    label: `${KIND_LABEL[c.kind]}: ${c.name}`,
  }));
  if (s && !targets.some((t) => t.value === s.endpoint)) targets.push({ value: s.endpoint, label: s.endpoint });
  const field = (id: string, label: string, input: preact.JSX.Element) => (
    <div class="field">
      <label for={`${idPrefix}-${id}`}>{label}</label>
      {input}
    </div>
  );

  return (
    <form
      class="schedule-form"
      aria-label={s ? `Edit ${s.name}` : "New schedule"}
      onSubmit={(e) => {
        e.preventDefault();
        setBusy(true);
        setError(undefined);
        const body = {
          name: name.trim(),
          endpoint,
          payload: { ...(s?.payload ?? {}), message },
          cron_expr: cron.trim(),
          timezone: timezone.trim(),
        };
        sendJson<Schedule>(s ? "PATCH" : "POST", s ? `/schedules/${encodeURIComponent(s.id)}` : "/schedules", body)
          .then(props.onSaved, (err: unknown) => setError(messageOf(err)))
          .finally(() => setBusy(false));
      }}
    >
      {field(
        "name",
        "Name",
        <input
          id={`${idPrefix}-name`}
          required
          maxLength={255}
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
        />,
      )}
      {field(
        "target",
        "Runs",
        <select id={`${idPrefix}-target`} value={endpoint} onChange={(e) => setEndpoint(e.currentTarget.value)}>
          {targets.map((t) => (
            <option key={t.value} value={t.value}>
              {t.label}
            </option>
          ))}
        </select>,
      )}
      {field(
        "message",
        "Message",
        <textarea
          id={`${idPrefix}-message`}
          required
          rows={2}
          value={message}
          onInput={(e) => setMessage(e.currentTarget.value)}
        />,
      )}
      {field(
        "cron",
        "Cron expression (minute hour day month weekday)",
        <input id={`${idPrefix}-cron`} required value={cron} onInput={(e) => setCron(e.currentTarget.value)} />,
      )}
      {field(
        "timezone",
        "Timezone",
        <input
          id={`${idPrefix}-timezone`}
          required
          value={timezone}
          onInput={(e) => setTimezone(e.currentTarget.value)}
        />,
      )}
      <Alert message={error} />
      <div class="actions">
        <button type="submit" disabled={busy}>
          {s ? "Save" : "Create schedule"}
        </button>
        {props.onCancel && (
          <button type="button" class="secondary" onClick={props.onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
