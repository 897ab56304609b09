import * as m0001 from "./0001_agno_3_0.js";

/** Every migration, oldest first. A migration's statements must be safe to run twice. */
export const MIGRATIONS = [m0001];

/** The schema version this code reads and writes. */
export const CURRENT_SCHEMA_VERSION = m0001.version;
