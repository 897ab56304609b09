export { GithubTools, type GithubToolsOptions } from "./github-tools.js";
