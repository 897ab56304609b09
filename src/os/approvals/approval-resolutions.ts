import { ValidationError } from "../../errors.js";
import type { ApprovalRecord } from "../../db/port.js";

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * What an approver's decision resolves, as `POST …/continue` takes requirements: every unresolved
 * requirement of the pause that carries this approval's id. Approving confirms a confirmation,
 * supplies a user-input tool's values (`resolution_data.values`, or the fields themselves) and an
 * external execution's `resolution_data.result`; rejecting refuses the call whatever its kind
 * (the model reads the reason). Missing data for an approval is the caller's 422, before anything
 * is written.
 */
export function approvalResolutions(
  approval: ApprovalRecord,
  decision: { status: "approved" | "rejected"; resolutionData: Json | null; reason: string | null },
): Json[] {
  const note = decision.reason ?? undefined;
  const data = decision.resolutionData ?? {};
  const mine = (approval.requirements ?? []).filter(
    (r) => r.resolved !== true && isObject(r.tool_execution) && r.tool_execution.approval_id === approval.id,
  );
  return mine.map((r) => {
    const id = String(r.id);
    if (decision.status === "rejected") return { id, confirmed: false, ...(note ? { confirmation_note: note } : {}) };
    if (r.kind === "user_input") {
      const values = isObject(data.values)
        ? data.values
        : Object.fromEntries(Object.entries(data).filter(([k]) => k !== "reason"));
      return { id, user_input: values };
    }
    if (r.kind === "external_execution") {
      if (data.result === undefined)
        throw new ValidationError(
          "body resolution_data.result: approving an external execution needs its result",
          "resolution_data",
        );
      return {
        id,
        external_execution_result: typeof data.result === "string" ? data.result : JSON.stringify(data.result),
      };
    }
    return { id, confirmed: true, ...(note ? { confirmation_note: note } : {}) };
  });
}
