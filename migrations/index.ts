import * as m0001 from "./0001_agno_3_0.js";
import * as m0002 from "./0002_schedules.js";
import * as m0003 from "./0003_user_quotas.js";
import * as m0004 from "./0004_review_deadlines.js";
import * as m0005 from "./0005_knowledge.js";
import * as m0006 from "./0006_learnings.js";
import * as m0007 from "./0007_components.js";
import * as m0008 from "./0008_approvals.js";
import * as m0009 from "./0009_service_accounts_audit.js";
import * as m0010 from "./0010_metrics_evals_traces.js";

/** Every migration, oldest first. A migration's statements must be safe to run twice. */
export const MIGRATIONS = [m0001, m0002, m0003, m0004, m0005, m0006, m0007, m0008, m0009, m0010];

/** The schema version this code reads and writes: the last migration's. */
export const CURRENT_SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
