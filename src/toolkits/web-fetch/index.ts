export { WebFetchTools, type WebFetchToolsOptions } from "./web-fetch-tools.js";
