export { reciprocalRankFusion, RRF_K } from "./fusion.js";
export { InMemoryVectorDb } from "./in-memory-vector-db.js";
export { PgVector, pgliteExecutor, type PgVectorOptions, type SqlExec, type SqlExecutor } from "./pgvector/index.js";
