import type { ApprovalRecord } from "../../db/port.js";
import type { Principal } from "../auth/jwt.js";

/** One write to an approval through `/approvals`: who, what, and the row before and after. */
export interface ApprovalWrite {
  principal: Principal;
  action: "resolve" | "delete";
  approvalId: string;
  before: ApprovalRecord;
  /** null after a delete */
  after: ApprovalRecord | null;
}

/** Called once per approval write, after it committed; what it throws fails the request (the write stands). */
export type ApprovalAudit = (write: ApprovalWrite) => void | Promise<void>;

/**
 * The audit seam of `/approvals`: every resolve and delete goes through it. It records nothing
 * until an audit trail is wired in (`approvalRoutes(…, audit)`).
 */
export const noApprovalAudit: ApprovalAudit = () => undefined;
