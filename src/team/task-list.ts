/** agno's TaskStatus. */
export type TaskStatus = "pending" | "in_progress" | "completed" | "failed" | "blocked";
export const SETTABLE_TASK_STATUSES = ["pending", "in_progress", "completed", "failed"] as const;

/** A task of a team's shared task list, in agno's Task dict shape. */
export interface Task {
  id: string;
  title: string;
  description: string;
  status: TaskStatus;
  assignee: string | null;
  parent_id: string | null;
  dependencies: string[];
  result: string | null;
  notes: string[];
  created_at: number;
}

/** Where the task list lives in the session state (agno's TASK_LIST_KEY), so it outlives a run. */
export const TASK_LIST_KEY = "_team_tasks";

const TERMINAL: ReadonlySet<TaskStatus> = new Set(["completed", "failed"]);

/**
 * A team's task list (`tasks` mode), kept in the session state: tasks with dependencies, whose
 * `blocked` status follows from them (a task whose dependency failed fails too, so the list can
 * always end).
 */
export class TaskList {
  constructor(
    readonly tasks: Task[] = [],
    public goalComplete = false,
    public completionSummary: string | null = null,
  ) {
    this.updateBlocked();
  }

  static load(state: Record<string, unknown>): TaskList {
    const raw = state[TASK_LIST_KEY] as
      { tasks?: Task[]; goal_complete?: boolean; completion_summary?: string | null } | undefined;
    if (!raw || typeof raw !== "object") return new TaskList();
    const tasks = (Array.isArray(raw.tasks) ? raw.tasks : []).map((t) => ({
      ...t,
      dependencies: [...(t.dependencies ?? [])],
      notes: [...(t.notes ?? [])],
    }));
    return new TaskList(tasks, raw.goal_complete === true, raw.completion_summary ?? null);
  }

  save(state: Record<string, unknown>): void {
    state[TASK_LIST_KEY] = {
      tasks: this.tasks.map((t) => ({ ...t, dependencies: [...t.dependencies], notes: [...t.notes] })),
      goal_complete: this.goalComplete,
      completion_summary: this.completionSummary,
    };
  }

  create(fields: { title: string; description: string; assignee: string | null; dependencies: string[] }): Task {
    const task: Task = {
      id: crypto.randomUUID().slice(0, 8),
      ...fields,
      status: "pending",
      parent_id: null,
      result: null,
      notes: [],
      created_at: Date.now() / 1000,
    };
    this.tasks.push(task);
    this.updateBlocked();
    return task;
  }

  get(id: string): Task | undefined {
    return this.tasks.find((t) => t.id === id);
  }

  update(task: Task, changes: Partial<Pick<Task, "status" | "result" | "assignee">>): void {
    Object.assign(task, changes);
    this.updateBlocked();
  }

  /** every task completed or failed (false for an empty list, as in agno) */
  allTerminal(): boolean {
    return this.tasks.length > 0 && this.tasks.every((t) => TERMINAL.has(t.status));
  }

  /** The list as the leader reads it (list_tasks, and the state it is shown each round). */
  summary(): string {
    if (this.tasks.length === 0) return "No tasks created yet.";
    const counts = new Map<string, number>();
    for (const t of this.tasks) counts.set(t.status, (counts.get(t.status) ?? 0) + 1);
    const lines = [
      `Tasks (${this.tasks.length} total: ${[...counts].map(([status, n]) => `${n} ${status}`).join(", ")}):`,
    ];
    for (const t of this.tasks) {
      lines.push(
        `  [${t.id}] ${t.title} - ${t.status.toUpperCase()}${t.assignee ? ` (assigned: ${t.assignee})` : " (unassigned)"}`,
      );
      if (t.dependencies.length > 0) lines.push(`      Depends on: ${t.dependencies.join(", ")}`);
      if (t.result) lines.push(`      Result: ${t.result.length > 200 ? `${t.result.slice(0, 200)}...` : t.result}`);
      for (const note of t.notes.slice(-3)) lines.push(`      Note: ${note}`);
    }
    if (this.goalComplete && this.completionSummary) lines.push(`\nGoal marked complete: ${this.completionSummary}`);
    return lines.join("\n");
  }

  /** A dependency that is unknown or not completed blocks a task (fail closed, as agno does). */
  private blocked(task: Task): boolean {
    return task.dependencies.some((id) => this.get(id)?.status !== "completed");
  }

  private updateBlocked(): void {
    for (const task of this.tasks) {
      if (task.status === "blocked") {
        if (task.dependencies.some((id) => this.get(id)?.status === "failed")) {
          task.status = "failed";
          task.result = "Automatically failed: a dependency failed.";
        } else if (!this.blocked(task)) task.status = "pending";
      } else if (task.status === "pending" && this.blocked(task)) task.status = "blocked";
    }
  }
}
