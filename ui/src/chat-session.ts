import { HttpError, request, type Component } from "./api.js";
import { requirementResolutions, stepResolutions, type Answer } from "./resolutions.js";
import { applyEvent, newRun, settled, type RunView } from "./run-state.js";
import { readSse } from "./sse.js";

/** A file sent with a message, as the conversation shows it back. */
export interface Attachment {
  name: string;
  type: string;
  /** a blob: URL of the picked file, for images */
  preview?: string;
}

export type Turn = { role: "user"; text: string; attachments: Attachment[] } | { role: "run"; run: RunView };

/** Automatic re-attachments after a dropped stream before the page offers a button instead. */
const AUTO_RESUMES = 3;

/**
 * One conversation with one agent, team or workflow: its turns, its session id (kept from the
 * first run's events so later messages continue the session), and the streams that feed it.
 * `changed` is called after every event so the view re-renders.
 */
export class ChatSession {
  turns: Turn[] = [];
  sessionId?: string;
  private closed = false;
  private aborts = new Set<AbortController>();

  constructor(
    readonly target: Component,
    private changed: () => void,
  ) {}

  get busy(): boolean {
    const last = this.turns.at(-1);
    return last?.role === "run" && !settled(last.run.status) && last.run.status !== "dropped";
  }

  /** Stops every stream of this conversation (a new chat, another target). */
  close(): void {
    this.closed = true;
    for (const abort of this.aborts) abort.abort();
    this.aborts.clear();
  }

  private get base(): string {
    return `/${this.target.kind}/${encodeURIComponent(this.target.id)}/runs`;
  }

  async send(message: string, files: File[]): Promise<void> {
    this.turns.push({
      role: "user",
      text: message,
      attachments: files.map((f) => ({
        name: f.name,
        type: f.type,
        ...(f.type.startsWith("image/") && { preview: URL.createObjectURL(f) }),
      })),
    });
    const run = newRun();
    this.turns.push({ role: "run", run });
    this.changed();
    // Multipart, as agno's UI sends a run: the form's fields plus `files`.
    const form = new FormData();
    form.set("message", message);
    form.set("stream", "true");
    if (this.sessionId) form.set("session_id", this.sessionId);
    for (const file of files) form.append("files", file, file.name);
    await this.stream(run, () => ({ url: this.base, init: { method: "POST", body: form } }));
  }

  /** Re-attaches to a dropped run after the last event seen. */
  async resume(run: RunView): Promise<void> {
    if (!run.runId) return;
    run.status = "reconnecting";
    this.changed();
    await this.resumeFrom(run, 0);
  }

  /** Answers a paused run's requirements and streams the run as it goes on. */
  async continueRun(run: RunView, answers: Map<string, Answer>): Promise<void> {
    if (!run.runId) return;
    const form = new FormData();
    form.set("stream", "true");
    if (this.sessionId) form.set("session_id", this.sessionId);
    if (this.target.kind === "workflows") form.set("step_requirements", JSON.stringify(stepResolutions(run, answers)));
    else form.set("requirements", JSON.stringify(requirementResolutions(run, answers)));
    run.status = "running";
    run.pending = [];
    this.changed();
    await this.stream(run, () => ({
      url: `${this.base}/${encodeURIComponent(run.runId!)}/continue`,
      init: { method: "POST", body: form },
    }));
  }

  /**
   * Feeds the run from one request's event stream. A stream that ends (or breaks) before the run
   * settles was dropped: the page re-attaches by itself a few times, then offers a button.
   */
  private async stream(run: RunView, open: () => { url: string; init: RequestInit }, attempt = 0): Promise<void> {
    const abort = new AbortController();
    this.aborts.add(abort);
    try {
      const { url, init } = open();
      const res = await request(url, { ...init, signal: abort.signal });
      if (!res.body) throw new Error("the answer had no body");
      for await (const frame of readSse(res.body)) {
        applyEvent(run, frame);
        if (run.sessionId && !this.sessionId) this.sessionId = run.sessionId;
        if (run.status === "reconnecting") run.status = "running";
        this.changed();
      }
    } catch (error) {
      if (abort.signal.aborted) return;
      if (error instanceof HttpError) {
        run.status = "error";
        run.error = error.message;
        this.changed();
        return;
      }
      // a network failure mid-stream: the run goes on on the server, so re-attach below
    } finally {
      this.aborts.delete(abort);
    }
    if (settled(run.status)) return;
    if (!run.runId) {
      run.status = "error";
      run.error = "the connection dropped before the run started";
    } else if (attempt < AUTO_RESUMES) {
      run.status = "reconnecting";
      this.changed();
      await new Promise((r) => setTimeout(r, 500 * (attempt + 1)));
      if (this.closed) return;
      return this.resumeFrom(run, attempt + 1);
    } else run.status = "dropped";
    this.changed();
  }

  private resumeFrom(run: RunView, attempt: number): Promise<void> {
    return this.stream(
      run,
      () => ({
        url: `${this.base}/${encodeURIComponent(run.runId!)}/resume`,
        init: {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            last_event_index: run.lastEventIndex,
            ...(this.sessionId && { session_id: this.sessionId }),
          }),
        },
      }),
      attempt,
    );
  }
}
