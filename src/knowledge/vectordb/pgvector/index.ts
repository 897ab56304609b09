export { PgVector, type PgVectorOptions } from "./pg-vector.js";
export { pgliteExecutor } from "./pglite-executor.js";
export type { SqlExec, SqlExecutor } from "./sql-executor.js";
export { filterSql } from "./sql-filters.js";
