export { CustomApiTools, type CustomApiToolsOptions } from "./custom-api-tools.js";
