export { approvalResolutions } from "./approval-resolutions.js";
