import { z } from "zod";
import { RUN_STATUSES } from "../../db/types.js";
import { APPROVAL_STATUSES } from "../../db/ports/approval-store.js";
import { agnoObject } from "./agno-object.js";
import { paginated } from "./paginated.js";

/** agno's approval models (os/routers/approvals/schema.py): optional fields are present as null. */
const source = (model: string) => ({ model, file: "os/routers/approvals/schema.py" });
const epoch = () => z.int().describe("Epoch seconds");
const json = z.record(z.string(), z.unknown());

export const approvalResponseSchema = agnoObject(source("ApprovalResponse"), {
  id: z.string(),
  run_id: z.string().describe("The paused run this approval lets go on"),
  session_id: z.string(),
  status: z.enum(APPROVAL_STATUSES),
  source_type: z.string().describe("agent, team or workflow: whose run it is"),
  approval_type: z.string().nullable().describe("required: the run waits for the decision"),
  pause_type: z.string().nullable().describe("confirmation, user_input or external_execution"),
  tool_name: z.string().nullable(),
  tool_args: json.nullable(),
  expires_at: epoch().nullable().describe("After it, a pending approval is expired and cannot be resolved"),
  agent_id: z.string().nullable(),
  team_id: z.string().nullable(),
  workflow_id: z.string().nullable(),
  user_id: z.string().nullable().describe("Who started the run (not the approver)"),
  schedule_id: z.string().nullable(),
  schedule_run_id: z.string().nullable(),
  source_name: z.string().nullable(),
  requirements: z.array(json).nullable().describe("The run's requirements when it paused"),
  context: json.nullable(),
  resolution_data: json.nullable().describe("What the approver sent with the decision, its reason included"),
  resolved_by: z.string().nullable().describe("The approver (their token's user id)"),
  resolved_at: epoch().nullable(),
  created_at: epoch().nullable(),
  updated_at: epoch().nullable(),
  run_status: z.enum(RUN_STATUSES).nullable().describe("The run's status as it stands"),
});

export const approvalListSchema = paginated(approvalResponseSchema);

export const approvalCountResponseSchema = agnoObject(source("ApprovalCountResponse"), {
  count: z.int().min(0).describe("Pending approvals"),
});

export const approvalStatusResponseSchema = agnoObject(source("ApprovalStatusResponse"), {
  approval_id: z.string(),
  status: z.string(),
  run_id: z.string(),
  resolved_at: epoch().nullable(),
  resolved_by: z.string().nullable(),
});

/** agno's ApprovalResolve, and `reason` (kept in `resolution_data.reason`). */
export const approvalResolveSchema = z
  .object({
    status: z.enum(["approved", "rejected"]),
    resolved_by: z
      .string()
      .max(255)
      .nullish()
      .describe("Ignored when the caller's token names a user: that user is recorded"),
    resolution_data: json
      .nullish()
      .describe(
        "For a user_input tool, the values (`values` or the fields themselves); for external execution, `result`",
      ),
    reason: z
      .string()
      .max(2000)
      .nullish()
      .describe("Why: recorded as resolution_data.reason and shown to the model on a rejection"),
  })
  .strict();
