export { DateTimeTools, type DateTimeToolsOptions } from "./date-time-tools.js";
