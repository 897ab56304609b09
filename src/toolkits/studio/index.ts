export { StudioTools, type StudioToolsOptions } from "./studio-tools.js";
export { errorResult, okResult, type StudioError, type StudioErrorCode, type StudioResult } from "./studio-result.js";
