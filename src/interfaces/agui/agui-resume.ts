import type { Component } from "../../agent/component.js";
import type { RequirementResolution } from "../../agent/hitl.js";
import type { RunOutput, RunRequirement } from "../../agent/run-output.js";
import { NotConfiguredError, NotFoundError } from "../../errors.js";
import { contentText, type AguiMessage } from "./agui-input.js";

/** How many of a thread's paused runs are looked through for the one the tool results answer. */
const PAUSED_RUNS_LOOKED_AT = 20;

/**
 * The paused run of the thread that waits on the calls the tool messages answer (agno's
 * _find_paused_run), read as `userId` may read it: another user's thread has none.
 */
export async function pausedRunAnswered(
  component: Component,
  threadId: string,
  toolMessages: readonly AguiMessage[],
  userId: string | undefined,
): Promise<RunOutput> {
  const db = component.db;
  if (!db) throw new NotConfiguredError("continuing a run after the frontend's tools needs a database");
  const ids = new Set(toolMessages.map((m) => m.toolCallId));
  const page = await db.getRuns({
    sessionId: threadId,
    status: "PAUSED",
    ...(component.ref.type === "team" ? { teamId: component.ref.id } : { agentId: component.ref.id }),
    ...(userId !== undefined ? { userId } : {}),
    sortBy: "created_at",
    sortOrder: "desc",
    limit: PAUSED_RUNS_LOOKED_AT,
  });
  const run = page.data
    .map((row) => row.run_data as unknown as RunOutput)
    .find((r) => (r.requirements ?? []).some((req) => !req.resolved && ids.has(req.tool_execution.tool_call_id)));
  if (!run) throw new NotFoundError(`no paused run of thread ${threadId} waits on these tool results`);
  return run;
}

/**
 * The resolutions the tool messages give the run's requirements (agno's
 * resolve_requirements_from_tool_messages): an external tool's result as it is (its error when
 * it failed), a confirmation from `{"accepted": true|false, "note"}`, user input from `{"values"}`.
 */
export function resolutionsFrom(
  requirements: readonly RunRequirement[],
  toolMessages: readonly AguiMessage[],
): RequirementResolution[] {
  const byCall = new Map(toolMessages.map((m) => [m.toolCallId, m]));
  return requirements.flatMap((req): RequirementResolution[] => {
    const message = req.resolved ? undefined : byCall.get(req.tool_execution.tool_call_id);
    if (!message) return [];
    const text = contentText(message);
    if (req.kind === "external_execution") return [{ id: req.id, external_execution_result: message.error ?? text }];
    const payload = objectOf(text);
    if (req.kind === "confirmation") {
      const note = typeof payload.note === "string" ? payload.note : message.error;
      return [
        {
          id: req.id,
          confirmed: message.error === undefined && payload.accepted === true,
          ...(note !== undefined ? { confirmation_note: note } : {}),
        },
      ];
    }
    const values = payload.values;
    if (values === null || typeof values !== "object" || Array.isArray(values)) return [];
    return [{ id: req.id, user_input: values as Record<string, unknown> }];
  });
}

function objectOf(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}
