import type { MessageRecord, RunRecord, RunType, SessionRecord } from "./types.js";

/** Runs that ended this way never feed history: their messages are incomplete or rejected. */
export const NON_HISTORY_STATUSES = ["PAUSED", "CANCELLED", "ERROR", "REGENERATED"];
const nonHistory = new Set(NON_HISTORY_STATUSES);

/**
 * The type of a run, read from its ids: a workflow id makes a workflow run, else a team id a
 * team run, else an agent run.
 */
export function runTypeOf(run: Pick<RunRecord, "workflow_id" | "team_id">): RunType {
  if (run.workflow_id) return "workflow";
  if (run.team_id) return "team";
  return "agent";
}

export interface MessagesOptions {
  /** only the messages of the last N top-level runs */
  lastNRuns?: number;
  /** leave out messages with these roles (for example "system") */
  skipRoles?: string[];
  /** also the runs that ran under another (a team's member runs): for a member's own history */
  includeMemberRuns?: boolean;
}

/**
 * A stored session with its runs joined back in run order. Runs live in `agno_runs`, not in the
 * session row; this view gives the conversation back the way agno's session objects do.
 *
 * @example
 * const session = await db.getSession("s1");
 * for (const m of session!.getChatHistory()) console.log(m.role, m.content);
 */
export class Session {
  constructor(readonly record: SessionRecord) {}

  get sessionId(): string {
    return this.record.session_id;
  }

  get runs(): RunRecord[] {
    return this.record.runs ?? [];
  }

  /**
   * Messages to send a model as history: top-level runs only (team member runs are folded
   * into their parent), finished runs only, never messages that were themselves history, and
   * the system message once at most.
   */
  getMessages(opts: MessagesOptions = {}): MessageRecord[] {
    let runs = this.runs.filter(
      (r) => (opts.includeMemberRuns || !r.parent_run_id) && !nonHistory.has(String(r.status)),
    );
    if (opts.lastNRuns !== undefined) runs = opts.lastNRuns > 0 ? runs.slice(-opts.lastNRuns) : [];
    const skip = new Set(opts.skipRoles ?? []);
    const out: MessageRecord[] = [];
    let systemSeen = false;
    for (const run of runs) {
      for (const message of run.messages ?? []) {
        if (message.from_history || skip.has(message.role)) continue;
        if (message.role === "system") {
          if (systemSeen) continue;
          systemSeen = true;
        }
        out.push(message);
      }
    }
    return out;
  }

  /** The user/assistant exchange across every finished top-level run, for display. */
  getChatHistory(): MessageRecord[] {
    return this.getMessages().filter((m) => m.role === "user" || m.role === "assistant");
  }

  toJSON(): SessionRecord {
    return this.record;
  }
}
