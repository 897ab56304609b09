import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import {
  credentialSet,
  getJson,
  HttpError,
  listComponents,
  signIn,
  signOut,
  whenSignedOut,
  type Component,
  type OsInfo,
} from "./api.js";
import { Chat } from "./chat.js";
import { Approvals } from "./approvals.js";
import { Databases } from "./databases.js";
import { Jobs } from "./jobs.js";
import { Schedules } from "./schedules.js";
import { Sessions } from "./sessions.js";
import { SignIn } from "./sign-in.js";

/** The views, in the nav's order, each at `#/<its key>`. */
const VIEWS = {
  chat: "Chat",
  sessions: "Sessions",
  schedules: "Schedules",
  jobs: "Jobs",
  approvals: "Approvals",
  database: "Database",
} as const;
type View = keyof typeof VIEWS;
const viewOfHash = (): View => {
  const key = location.hash.slice(2);
  return key in VIEWS ? (key as View) : "chat";
};

type State =
  | { phase: "loading" }
  | { phase: "failed"; message: string }
  | { phase: "sign-in"; info: OsInfo; message?: string }
  | { phase: "ready"; info: OsInfo; components: Component[] };

function App() {
  const [state, setState] = useState<State>({ phase: "loading" });
  const [view, setView] = useState<View>(viewOfHash);

  /** Reads /info (public), then, when signed in or when auth is off, what the OS serves. */
  const load = async (message?: string) => {
    try {
      const info = await getJson<OsInfo>("/info");
      document.title = `${info.name}: console`;
      if (info.auth_mode !== "none" && !credentialSet()) return setState({ phase: "sign-in", info, message });
      try {
        setState({ phase: "ready", info, components: await listComponents() });
      } catch (error) {
        if (error instanceof HttpError && error.status === 401) return; // whenSignedOut shows the form
        throw error;
      }
    } catch (error) {
      setState({ phase: "failed", message: error instanceof Error ? error.message : String(error) });
    }
  };

  useEffect(() => {
    whenSignedOut((reason) =>
      setState((s) => ({
        phase: "sign-in",
        info: "info" in s ? s.info : { os_id: "", name: "AgentOS", os_version: "", auth_mode: "security_key" },
        message: `Signed out: the server refused the credential (${reason}).`,
      })),
    );
    const onHash = () => setView(viewOfHash());
    addEventListener("hashchange", onHash);
    void load();
    return () => removeEventListener("hashchange", onHash);
  }, []);

  if (state.phase === "loading") return <p class="loading">Loading…</p>;
  if (state.phase === "failed")
    return (
      <main class="sign-in">
        <h1>The console could not load</h1>
        <p role="alert">{state.message}</p>
        <button type="button" onClick={() => void load()}>
          Try again
        </button>
      </main>
    );
  if (state.phase === "sign-in")
    return (
      <SignIn
        info={state.info}
        message={state.message}
        onSubmit={(credential) => {
          signIn(credential);
          void load();
        }}
      />
    );
  return (
    <>
      <header class="top">
        <span class="brand">{state.info.name}</span>
        <nav aria-label="Views">
          {(Object.keys(VIEWS) as View[]).map((v) => (
            <a key={v} href={`#/${v}`} aria-current={view === v ? "page" : undefined}>
              {VIEWS[v]}
            </a>
          ))}
        </nav>
        {state.info.auth_mode !== "none" && (
          <button
            type="button"
            class="secondary"
            onClick={() => {
              signOut();
              setState({ phase: "sign-in", info: state.info, message: "Signed out." });
            }}
          >
            Sign out
          </button>
        )}
      </header>
      <main>
        <h1 class="visually-hidden">{VIEWS[view]}</h1>
        {/* The chat stays mounted on the other views: its conversation and streams go on. */}
        <div hidden={view !== "chat"}>
          <Chat components={state.components} />
        </div>
        {view === "sessions" && <Sessions components={state.components} />}
        {view === "schedules" && <Schedules components={state.components} />}
        {view === "jobs" && <Jobs />}
        {view === "approvals" && <Approvals />}
        {view === "database" && <Databases />}
      </main>
    </>
  );
}

render(<App />, document.getElementById("app")!);
