export { FileTools, type FileToolsOptions } from "./file-tools.js";
