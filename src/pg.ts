/**
 * `agno-edge/pg`: the Postgres adapter over node-postgres (`pg`) instead of the Neon serverless
 * driver, apart from the SDK so that `pg` is in the module graph only of apps that import it.
 */
export { nodePostgresDb } from "./db/postgres/node-postgres-db.js";
