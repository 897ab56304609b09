export { ResendTools, type ResendToolsOptions } from "./resend-tools.js";
