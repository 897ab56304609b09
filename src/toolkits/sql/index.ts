export { SQLTools, type SqlToolsOptions } from "./sql-tools.js";
export {
  pgPoolConnector,
  type PgLikePool,
  type SqlConnector,
  type SqlResult,
  type SqlSession,
} from "./sql-connector.js";
