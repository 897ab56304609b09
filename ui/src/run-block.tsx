import { useState } from "preact/hooks";
import type { Answer } from "./resolutions.js";
import type { MemberView, PendingView, RunView, ToolView } from "./run-state.js";

const pretty = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v, null, 2));

function ToolCall({ tool }: { tool: ToolView }) {
  return (
    <details class={`tool${tool.error ? " failed" : ""}`} data-tool={tool.name}>
      <summary>
        Tool <code>{tool.name}</code> {tool.error ? "failed" : tool.done ? "done" : "running…"}
      </summary>
      <div class="tool-body">
        <h4>Arguments</h4>
        <pre>{pretty(tool.args ?? {})}</pre>
        {tool.done && (
          <>
            <h4>{tool.error ? "Error" : "Result"}</h4>
            <pre>{tool.error ?? pretty(tool.result ?? "")}</pre>
          </>
        )}
      </div>
    </details>
  );
}

function Member({ member }: { member: MemberView }) {
  return (
    <section class="member" aria-label={`Member run: ${member.name}`}>
      <h3>
        {member.name} {member.done ? "" : "(working…)"}
      </h3>
      {member.tools.map((t) => (
        <ToolCall key={t.id} tool={t} />
      ))}
      {member.content && <p class="content">{member.content}</p>}
    </section>
  );
}

/** The form a paused run shows: confirm or reject each call, or fill in what it asks for. */
function PendingForm(props: { pending: PendingView[]; onAnswer: (answers: Map<string, Answer>) => void }) {
  const [values, setValues] = useState<Record<string, Record<string, string>>>({});
  const [decisions, setDecisions] = useState<Record<string, boolean>>({});
  const needsInput = props.pending.some((p) => p.fields.length > 0 && !p.confirm);
  const submit = (confirmed?: boolean) => {
    const answers = new Map<string, Answer>();
    for (const p of props.pending)
      answers.set(p.key, { confirmed: confirmed ?? decisions[p.key] ?? true, values: values[p.key] ?? {} });
    props.onAnswer(answers);
  };
  const single = props.pending.length === 1;
  return (
    <form
      class="pending"
      aria-label="The run waits for you"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <h3>Waiting for you</h3>
      {props.pending.map((p) => (
        <fieldset key={p.key}>
          <legend>{p.message ?? p.title}</legend>
          {p.args !== undefined && <pre>{pretty(p.args)}</pre>}
          {p.fields.map((f) => {
            const id = `input-${p.key}-${f.name}`.replace(/[^\w-]/g, "_");
            return (
              <div class="field" key={f.name}>
                <label for={id}>
                  {f.name}
                  {f.description ? ` (${f.description})` : ""}
                </label>
                <input
                  id={id}
                  required
                  value={values[p.key]?.[f.name] ?? (f.value == null ? "" : String(f.value))}
                  onInput={(e) =>
                    setValues({ ...values, [p.key]: { ...values[p.key], [f.name]: e.currentTarget.value } })
                  }
                />
              </div>
            );
          })}
          {p.confirm && !single && (
            <label class="choice">
              <input
                type="checkbox"
                checked={decisions[p.key] ?? true}
                onChange={(e) => setDecisions({ ...decisions, [p.key]: e.currentTarget.checked })}
              />{" "}
              Allow {p.title}
            </label>
          )}
        </fieldset>
      ))}
      <div class="actions">
        {needsInput || !single ? (
          <button type="submit">Send</button>
        ) : (
          <>
            <button type="button" onClick={() => submit(true)}>
              Confirm
            </button>
            <button type="button" class="secondary" onClick={() => submit(false)}>
              Reject
            </button>
          </>
        )}
      </div>
    </form>
  );
}

const STATUS: Record<RunView["status"], string> = {
  running: "Running…",
  reconnecting: "Connection lost: reconnecting…",
  dropped: "Connection lost",
  paused: "Paused",
  completed: "",
  error: "Failed",
  cancelled: "Cancelled",
};

/** One run of the conversation as it streams: steps, member runs, tool calls, the answer, and what it waits for. */
export function RunBlock(props: {
  run: RunView;
  label: string;
  onResume: () => void;
  onAnswer: (answers: Map<string, Answer>) => void;
}) {
  const { run } = props;
  return (
    <article class="turn run" data-status={run.status} aria-busy={run.status === "running"}>
      <h2 class="who">{props.label}</h2>
      {run.steps.length > 0 && (
        <ol class="steps" aria-label="Workflow steps">
          {run.steps.map((s, i) => (
            <li key={i} data-status={s.status}>
              {s.name}: {s.status === "running" ? "running…" : s.status === "done" ? "done" : `failed ${s.error ?? ""}`}
            </li>
          ))}
        </ol>
      )}
      {run.tools.map((t) => (
        <ToolCall key={t.id} tool={t} />
      ))}
      {run.members.map((m) => (
        <Member key={m.runId} member={m} />
      ))}
      {run.content && <div class="content">{run.content}</div>}
      {STATUS[run.status] && (
        <p class={`status ${run.status}`} role={run.status === "error" ? "alert" : undefined}>
          {STATUS[run.status]}
          {run.error ? `: ${run.error}` : ""}
        </p>
      )}
      {run.status === "dropped" && (
        <button type="button" onClick={props.onResume}>
          Resume
        </button>
      )}
      {run.status === "paused" && run.pending.length > 0 && (
        <PendingForm pending={run.pending} onAnswer={props.onAnswer} />
      )}
    </article>
  );
}
