import { z } from "zod";
import type { RunEvent } from "../agent/events.js";
import { identityOf } from "../agent/component.js";
import { tool, type Tool, type ToolContext } from "../tools/tool.js";
import { nowSeconds } from "../time.js";
import { findMember } from "./member-id.js";
import { runMember } from "./run-member.js";
import type { TeamToolHost } from "./team-context.js";
import { membersBlock } from "./team-prompt.js";
import { SETTABLE_TASK_STATUSES, TaskList, type Task } from "./task-list.js";

/**
 * The task list, changed and saved in one synchronous step: tools running side by side (parallel
 * calls, members finishing) each read the list as it is now and never write back a stale copy.
 */
function mutate<T>(ctx: ToolContext, change: (list: TaskList) => T): T {
  const list = TaskList.load(ctx.sessionState);
  const out = change(list);
  list.save(ctx.sessionState);
  return out;
}

/** agno's TeamTaskCreated / TeamTaskUpdated events, streamed as the list changes. */
function taskEvent(host: TeamToolHost, ctx: ToolContext, task: Task, previous?: string): RunEvent {
  const base = {
    run_id: ctx.runId,
    session_id: ctx.sessionId,
    ...identityOf(host.ref),
    created_at: nowSeconds(),
    task_id: task.id,
    title: task.title,
    status: task.status,
    assignee: task.assignee,
  };
  if (previous === undefined)
    return { event: "TeamTaskCreated", ...base, description: task.description, dependencies: task.dependencies };
  const terminal = task.status === "completed" || task.status === "failed";
  return { event: "TeamTaskUpdated", ...base, previous_status: previous, result: terminal ? task.result : null };
}

/** Runs task `taskId` on member `memberId`, recording the outcome on the task; the answer says how it went. */
async function executeTask(host: TeamToolHost, ctx: ToolContext, taskId: string, memberId: string): Promise<string> {
  const task = TaskList.load(ctx.sessionState).get(taskId);
  if (!task) return `Task with ID '${taskId}' not found.`;
  if (task.status !== "pending" && task.status !== "in_progress")
    return `Task [${taskId}] is ${task.status} and cannot be executed.`;
  const member = findMember(host.members, memberId);
  if (!member) return `Member with ID ${memberId} not found. Available members:\n${membersBlock(host.members)}`;
  const started = mutate(ctx, (list) => {
    const t = list.get(taskId)!;
    const previous = t.status;
    list.update(t, { status: "in_progress", assignee: memberId });
    return { task: { ...t }, previous };
  });
  ctx.emit?.(taskEvent(host, ctx, started.task, started.previous));
  const finish = (changes: Partial<Task>, answer: (t: Task) => string): string => {
    const t = mutate(ctx, (list) => {
      const current = list.get(taskId)!;
      list.update(current, changes);
      return { ...current };
    });
    if (t.status !== "pending") ctx.emit?.(taskEvent(host, ctx, t, "in_progress"));
    return answer(t);
  };
  let output;
  try {
    output = await runMember(member, task.description || task.title, ctx, host.stateOf(ctx), host.streamMemberEvents);
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    return finish(
      { status: "failed", result: `Member execution error: ${reason}` },
      (t) => `Task [${t.id}] failed due to member execution error: ${reason}`,
    );
  }
  if (output.status === "PAUSED")
    // Back to pending, so the task runs again once the person has answered.
    return finish(
      { status: "pending" },
      (t) => `Member '${member.ref.name ?? memberId}' requires human input before continuing. Task [${t.id}] paused.`,
    );
  const content = output.content === undefined || output.content === null ? "" : String(output.content);
  if (output.status !== "COMPLETED")
    return finish(
      { status: "failed", result: content || "Task failed" },
      (t) => `Task [${t.id}] failed: ${t.result ?? ""}`,
    );
  if (!content)
    return finish(
      { status: "completed", result: "No content returned" },
      (t) => `Task [${t.id}] completed with no content.`,
    );
  return finish({ status: "completed", result: content }, (t) => `Task [${t.id}] completed. Result: ${content}`);
}

/** agno's task tools for `tasks` mode: the leader plans a shared task list and members execute it. */
export function taskTools(host: TeamToolHost): Tool[] {
  return [
    tool({
      name: "create_task",
      description: "Create a new task for the team to work on.",
      parameters: z.object({
        title: z.string().describe("A short, actionable title for the task."),
        description: z.string().default("").describe("Detailed description of what needs to be done."),
        assignee: z.string().default("").describe("The member_id to assign this task to. Must be a valid member_id."),
        depends_on: z
          .array(z.string())
          .nullish()
          .describe("List of task IDs that must complete before this task can start."),
      }),
      execute: ({ title, description, assignee, depends_on }, ctx) => {
        const made = mutate(ctx, (list) => {
          const same = list.tasks.find((t) => t.title.trim().toLowerCase() === title.trim().toLowerCase());
          if (same) return { existing: { ...same } };
          return {
            task: {
              ...list.create({ title, description, assignee: assignee || null, dependencies: depends_on ?? [] }),
            },
          };
        });
        if (made.existing)
          return `Task already exists: [${made.existing.id}] ${made.existing.title} (status: ${made.existing.status}). Use this task instead of creating a duplicate.`;
        ctx.emit?.(taskEvent(host, ctx, made.task!));
        return `Task created: [${made.task!.id}] ${made.task!.title} (status: ${made.task!.status})`;
      },
    }),
    tool({
      name: "update_task_status",
      description: "Update the status of a task. Use this to mark tasks you handle yourself as completed.",
      parameters: z.object({
        task_id: z.string().describe("The ID of the task to update."),
        status: z.string().describe("New status. One of: pending, in_progress, completed, failed."),
        result: z.string().nullish().describe("The result or outcome of the task (when completing)."),
      }),
      execute: ({ task_id, status, result }, ctx) => {
        if (status === "blocked")
          return "Cannot manually set status to 'blocked'. Blocked status is managed automatically based on task dependencies.";
        if (!(SETTABLE_TASK_STATUSES as readonly string[]).includes(status))
          return `Invalid status '${status}'. Must be one of: pending, in_progress, completed, failed.`;
        const updated = mutate(ctx, (list) => {
          const t = list.get(task_id);
          if (!t) return undefined;
          const previous = t.status;
          list.update(t, { status: status as Task["status"], ...(result != null ? { result } : {}) });
          return { task: { ...t }, previous };
        });
        if (!updated) return `Task with ID '${task_id}' not found.`;
        ctx.emit?.(taskEvent(host, ctx, updated.task, updated.previous));
        return `Task [${updated.task.id}] '${updated.task.title}' updated to ${updated.task.status}.`;
      },
    }),
    tool({
      name: "list_tasks",
      description: "List all tasks with their current status, assignees, and dependencies.",
      parameters: z.object({}),
      execute: (_args, ctx) => TaskList.load(ctx.sessionState).summary(),
    }),
    tool({
      name: "add_task_note",
      description: "Add a note to a task for tracking progress or communicating context.",
      parameters: z.object({
        task_id: z.string().describe("The ID of the task."),
        note: z.string().describe("The note to add."),
      }),
      execute: ({ task_id, note }, ctx) =>
        mutate(ctx, (list) => {
          const t = list.get(task_id);
          if (!t) return `Task with ID '${task_id}' not found.`;
          t.notes.push(note);
          return `Note added to task [${t.id}].`;
        }),
    }),
    tool({
      name: "mark_all_complete",
      description: "Signal that the overall goal has been achieved. Call this when all tasks are done.",
      parameters: z.object({ summary: z.string().describe("A summary of the work done and the final outcome.") }),
      execute: ({ summary }, ctx) =>
        mutate(ctx, (list) => {
          list.goalComplete = true;
          list.completionSummary = summary;
          return `Goal marked as complete. Summary: ${summary}`;
        }),
    }),
    tool({
      name: "execute_task",
      description:
        "Execute a task by delegating it to a team member. The member will receive the task description and return a result.",
      parameters: z.object({
        task_id: z.string().describe("The ID of the task to execute."),
        member_id: z.string().describe("The ID of the member to execute the task."),
      }),
      execute: ({ task_id, member_id }, ctx) => executeTask(host, ctx, task_id, member_id),
    }),
    tool({
      name: "execute_tasks_parallel",
      description: "Execute multiple independent tasks in parallel by delegating each to its assigned member.",
      parameters: z.object({
        task_ids: z.array(z.string()).describe("List of task IDs to execute concurrently."),
      }),
      execute: async ({ task_ids }, ctx) => {
        const list = TaskList.load(ctx.sessionState);
        const answers = await Promise.all(
          task_ids.map((id) => {
            const task = list.get(id);
            if (!task) return `Task with ID '${id}' not found.`;
            if (!task.assignee) return `Task [${id}] has no assignee: set one or use execute_task.`;
            return executeTask(host, ctx, id, task.assignee);
          }),
        );
        if (ctx.signal.aborted) throw ctx.signal.reason;
        return answers.join("\n");
      },
    }),
  ];
}
