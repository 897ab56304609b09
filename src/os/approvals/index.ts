export { approvalResolutions } from "./approval-resolutions.js";
export { noApprovalAudit, type ApprovalAudit, type ApprovalWrite } from "./approval-audit.js";
