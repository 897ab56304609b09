import { z } from "zod";
import { ForbiddenError, ValidationError } from "../errors.js";
import type { Tool } from "../tools/tool.js";
import type { RunRequirement, ToolExecution, UserInputField } from "./run-output.js";

/** Resolutions a caller sends to `continueRun`, one per requirement id. */
export const requirementResolution = z
  .object({
    id: z.string().min(1),
    confirmed: z.boolean().optional(),
    confirmation_note: z.string().max(10_000).optional(),
    user_input: z.record(z.string(), z.unknown()).optional(),
    external_execution_result: z.string().max(1_000_000).optional(),
  })
  .strict();
export type RequirementResolution = z.infer<typeof requirementResolution>;

function inputSchemaFor(tool: Tool, args: Record<string, unknown>): UserInputField[] {
  const properties = (tool.definition().parameters.properties ?? {}) as Record<
    string,
    { type?: string; description?: string }
  >;
  const fields = tool.userInputFields ?? Object.keys(properties);
  return fields.map((name) => ({
    name,
    field_type: properties[name]?.type ?? "string",
    description: properties[name]?.description ?? null,
    value: args[name] ?? null,
  }));
}

/** What a person must do before a call to `tool` runs, or null when it may run right away. */
export function requirementKind(tool: Tool): RunRequirement["kind"] | null {
  return tool.externalExecution
    ? "external_execution"
    : tool.requiresUserInput
      ? "user_input"
      : tool.requiresConfirmation || tool.requiresApproval
        ? "confirmation"
        : null;
}

/**
 * The error the model reads when a call's arguments fail its tool's schema, or null when they
 * pass. Checked before a person is asked to confirm a call, which could only fail afterwards.
 */
export function invalidArguments(tool: Tool, args: Record<string, unknown>): string | null {
  const parsed = tool.parameters.safeParse(args);
  return parsed.success ? null : `Error: invalid arguments for ${tool.name}: ${z.prettifyError(parsed.error)}`;
}

/** The requirement a tool call creates, or null when it may run right away. */
export function requirementFor(tool: Tool, execution: ToolExecution, now: number): RunRequirement | null {
  const kind = requirementKind(tool);
  if (!kind) return null;
  if (kind === "confirmation") execution.requires_confirmation = true;
  if (kind === "user_input") {
    execution.requires_user_input = true;
    execution.user_input_schema = inputSchemaFor(tool, execution.tool_args);
  }
  if (kind === "external_execution") execution.external_execution_required = true;
  if (tool.requiresApproval) {
    execution.requires_approval = true;
    execution.approval_type = "required";
  }
  return {
    id: execution.tool_call_id,
    kind,
    tool_execution: execution,
    requires_admin: Boolean(tool.requiresApproval),
    created_at: now,
    ...(tool.requiresApproval && tool.approvalExpiresIn !== undefined
      ? { approval_expires_at: now + tool.approvalExpiresIn }
      : {}),
    resolved: false,
  };
}

/**
 * Gives the approver's requirements of a pause that have none one approval id (agno: one
 * approval per pause), on the requirement's call and on the run's record of that call: the
 * write that stores the run PAUSED creates the approval from it (migrations/0008).
 */
export function stampApprovalId(requirements: RunRequirement[], tools: ToolExecution[]): void {
  const waiting = requirements.filter((r) => r.requires_admin && !r.resolved && !r.tool_execution.approval_id);
  if (waiting.length === 0) return;
  const approvalId = crypto.randomUUID();
  for (const r of waiting) {
    r.tool_execution.approval_id = approvalId;
    r.tool_execution.approval_type = "required";
    for (const t of tools)
      if (t.tool_call_id === r.tool_execution.tool_call_id)
        Object.assign(t, { approval_id: approvalId, approval_type: "required" });
  }
}

/**
 * Applies resolutions to stored requirements. Unknown ids, a resolution of the wrong kind and a
 * non-admin resolving an admin-only requirement are errors, and nothing is applied then.
 */
export function applyResolutions(
  requirements: RunRequirement[],
  resolutions: RequirementResolution[],
  approver: { isAdmin: boolean },
): RunRequirement[] {
  const next = requirements.map((r) => ({ ...r, tool_execution: { ...r.tool_execution } }));
  for (const res of resolutions) {
    const req = next.find((r) => r.id === res.id);
    if (!req) throw new ValidationError(`no requirement ${res.id} on this run`, "requirements");
    if (req.resolved) continue;
    if (req.requires_admin && !approver.isAdmin)
      throw new ForbiddenError(`requirement ${res.id} (${req.tool_execution.tool_name}) needs an admin's approval`);
    if (req.requires_admin && req.kind !== "confirmation" && res.confirmed === false) {
      // An approver's rejection stands for any kind: the call does not run (agno's confirmed=False).
      req.confirmed = false;
      req.confirmation_note = res.confirmation_note ?? null;
      req.tool_execution.confirmed = false;
      req.tool_execution.confirmation_note = res.confirmation_note ?? null;
    } else if (req.kind === "confirmation") {
      if (res.confirmed === undefined)
        throw new ValidationError(`requirement ${res.id} needs confirmed: true or false`, "confirmed");
      req.confirmed = res.confirmed;
      req.confirmation_note = res.confirmation_note ?? null;
      req.tool_execution.confirmed = res.confirmed;
      req.tool_execution.confirmation_note = res.confirmation_note ?? null;
    } else if (req.kind === "user_input") {
      if (!res.user_input) throw new ValidationError(`requirement ${res.id} needs user_input`, "user_input");
      req.user_input = res.user_input;
      req.tool_execution.tool_args = { ...req.tool_execution.tool_args, ...res.user_input };
      req.tool_execution.answered = true;
    } else {
      if (res.external_execution_result === undefined)
        throw new ValidationError(`requirement ${res.id} needs external_execution_result`, "external_execution_result");
      req.external_execution_result = res.external_execution_result;
    }
    req.resolved = true;
  }
  return next;
}
