import { useEffect, useRef, useState } from "preact/hooks";
import type { Component } from "./api.js";
import { ChatSession } from "./chat-session.js";
import { RunBlock } from "./run-block.js";

const keyOf = (c: Component) => `${c.kind}/${c.id}`;
const KIND_LABEL = { agents: "Agents", teams: "Teams", workflows: "Workflows" } as const;

/** Chat: pick an agent, team or workflow, send messages (with files), watch each run stream. */
export function Chat(props: { components: Component[] }) {
  const [targetKey, setTargetKey] = useState(() => (props.components[0] ? keyOf(props.components[0]) : ""));
  const target = props.components.find((c) => keyOf(c) === targetKey);
  const [, setTick] = useState(0);
  const rerender = () => setTick((n) => n + 1);
  const [session, setSession] = useState<ChatSession | undefined>();
  const [message, setMessage] = useState("");
  const [files, setFiles] = useState<File[]>([]);
  const fileInput = useRef<HTMLInputElement>(null);
  const log = useRef<HTMLDivElement>(null);

  // A new conversation whenever the target changes; the old one's streams stop.
  useEffect(() => {
    const made = target ? new ChatSession(target, rerender) : undefined;
    setSession(made);
    return () => made?.close();
  }, [targetKey]);

  // The newest turn stays in view while the reader is at the bottom; scrolled up, they stay where they are.
  const following = useRef(true);
  useEffect(() => {
    const onScroll = () => {
      following.current = innerHeight + scrollY >= document.documentElement.scrollHeight - 200;
    };
    addEventListener("scroll", onScroll, { passive: true });
    return () => removeEventListener("scroll", onScroll);
  }, []);
  useEffect(() => {
    if (following.current) log.current?.lastElementChild?.scrollIntoView({ block: "end" });
  });

  const newChat = () => {
    session?.close();
    if (target) setSession(new ChatSession(target, rerender));
  };

  const send = (e: Event) => {
    e.preventDefault();
    if (!session || session.busy || !message.trim()) return;
    following.current = true;
    void session.send(message.trim(), files);
    setMessage("");
    setFiles([]);
    if (fileInput.current) fileInput.current.value = "";
  };

  if (props.components.length === 0) return <p>This AgentOS serves no agents, teams or workflows.</p>;
  return (
    <section class="chat" aria-label="Chat">
      <div class="toolbar">
        <label for="target">Chat with</label>
        <select id="target" value={targetKey} onChange={(e) => setTargetKey(e.currentTarget.value)}>
          {(["agents", "teams", "workflows"] as const).map((kind) => {
            const list = props.components.filter((c) => c.kind === kind);
            return list.length === 0 ? null : (
              <optgroup key={kind} label={KIND_LABEL[kind]}>
                {list.map((c) => (
                  <option key={keyOf(c)} value={keyOf(c)}>
                    {c.name}
                  </option>
                ))}
              </optgroup>
            );
          })}
        </select>
        <button type="button" class="secondary" onClick={newChat}>
          New chat
        </button>
        {session?.sessionId && (
          <span class="session-id" title="Session id">
            Session <code>{session.sessionId}</code>
          </span>
        )}
      </div>
      <div class="log" ref={log} role="log" aria-live="polite" aria-label="Conversation">
        {session?.turns.length === 0 && <p class="hint">Send a message to start a conversation.</p>}
        {session?.turns.map((turn, i) =>
          turn.role === "user" ? (
            <article class="turn user" key={i}>
              <h2 class="who">You</h2>
              <div class="content">{turn.text}</div>
              {turn.attachments.length > 0 && (
                <ul class="attachments" aria-label="Attached files">
                  {turn.attachments.map((a, j) => (
                    <li key={j}>
                      {a.preview && <img src={a.preview} alt={a.name} />}
                      <span>{a.name}</span>
                    </li>
                  ))}
                </ul>
              )}
            </article>
          ) : (
            <RunBlock
              key={i}
              run={turn.run}
              label={target?.name ?? "Run"}
              onResume={() => void session.resume(turn.run)}
              onAnswer={(answers) => void session.continueRun(turn.run, answers)}
            />
          ),
        )}
      </div>
      <form class="composer" onSubmit={send}>
        <label for="message" class="visually-hidden">
          Message
        </label>
        <textarea
          id="message"
          rows={2}
          placeholder={`Message ${target?.name ?? ""}`}
          value={message}
          onInput={(e) => setMessage(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey) send(e);
          }}
        />
        <div class="composer-actions">
          <label for="files" class="file-label">
            Attach files
          </label>
          <input
            id="files"
            ref={fileInput}
            type="file"
            multiple
            onChange={(e) => setFiles([...(e.currentTarget.files ?? [])])}
          />
          <button type="submit" disabled={!session || session.busy}>
            Send
          </button>
        </div>
        {files.length > 0 && <p class="picked">Attached: {files.map((f) => f.name).join(", ")}</p>}
      </form>
    </section>
  );
}
