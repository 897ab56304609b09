import type { Context } from "hono";
import { z } from "zod";
import type { Db, MetricsBucket } from "../../db/port.js";
import { DEFAULT_TABLE_NAMES, type TableNames } from "../../db/postgres/names.js";
import { BadRequestError, NotFoundError } from "../../errors.js";
import { publicError } from "../../public-error.js";
import { aggregateByDate } from "../../metrics/aggregate-by-date.js";
import { ownerBucketIds } from "../../metrics/owner-bucket-ids.js";
import { keepAlive } from "../agent-runs.js";
import { scopedUserId } from "../auth/scopes.js";
import type { OSEnv } from "../context.js";
import { agnoDatetimeOf } from "../wire/agno-object.js";
import { defineRoute, errorSchema, handle, idSchema, jsonAnswer, routeApp } from "../route.js";
import {
  dayAggregatedMetricsSchema,
  dayAggregatedMetricsView,
  metricsRefreshResponseSchema,
  metricsRefreshStatusResponseSchema,
  metricsResponseSchema,
} from "../wire/metrics.js";
import { agnoTime } from "../session-view.js";
import { dbFor } from "./sessions.js";

const tags: ["Metrics"] = ["Metrics"];
const read = { resource: "metrics", action: "read" };
const write = { resource: "metrics", action: "write" };

/** Which database and table a metrics route uses (agno's `db_id` and `table`). */
const where = { db_id: idSchema.optional(), table: idSchema.optional() };
const day = z.iso.date().describe("YYYY-MM-DD (UTC)");
const ownerFilter = idSchema
  .optional()
  .describe("Only this user's metrics; ignored for a non-admin under user isolation, who reads their own");
const noSuchDb = { 404: jsonAnswer(errorSchema, "No such database or metrics table") };

const getMetrics = defineRoute({
  method: "get",
  path: "/metrics",
  tags,
  summary: "Daily metrics (runs, sessions, users, tokens, cost by model) of a date range, every day without one",
  description:
    "Without `user_id` an admin (or anyone without user isolation) reads each day deployment-wide, every user's bucket summed; with `user_id`, that user's buckets. Under user isolation a non-admin reads their own buckets only.",
  scope: read,
  request: {
    query: z.object({ starting_date: day.optional(), ending_date: day.optional(), user_id: ownerFilter, ...where }),
  },
  responses: {
    200: jsonAnswer(metricsResponseSchema, "The days' metrics"),
    400: jsonAnswer(errorSchema, "ending_date is before starting_date"),
    ...noSuchDb,
  },
});

const refreshMetrics = defineRoute({
  method: "post",
  path: "/metrics/refresh",
  tags,
  summary: "Recount the days written since the last refresh and answer the buckets written (background=true: 202)",
  description:
    "Recomputes only the days whose sessions or runs were written since the last refresh, and days counted before they ended; the cron tick does the same every minute. A refresh that starts while another runs on the same database waits for it, then recounts what is left.",
  scope: write,
  request: {
    query: z.object({
      user_id: ownerFilter,
      background: z
        .enum(["true", "false"])
        .default("false")
        .transform((v) => v === "true")
        .describe("Refresh in the background and answer 202 at once"),
      ...where,
    }),
  },
  responses: {
    200: jsonAnswer(
      z.array(dayAggregatedMetricsSchema),
      "The buckets this refresh wrote (the caller's own under isolation)",
    ),
    202: jsonAnswer(metricsRefreshResponseSchema, "Background refresh started, or one already running here"),
    ...noSuchDb,
  },
});

const refreshStatus = defineRoute({
  method: "get",
  path: "/metrics/refresh/status",
  tags,
  summary: "The latest refresh this isolate started through the API: idle, running, completed or failed",
  scope: read,
  request: { query: z.object(where) },
  responses: { 200: jsonAnswer(metricsRefreshStatusResponseSchema, "The refresh status"), ...noSuchDb },
});

/** One database's latest refresh through these routes; times in epoch milliseconds. */
interface RefreshState {
  status: "running" | "completed" | "failed";
  startedMs: number;
  finishedMs: number | null;
  error: string | null;
}

/** The name of a database's metrics table (what `?table=` must name). */
function metricsTableOf(db: Db): string {
  return (db as Partial<{ names: TableNames }>).names?.metrics ?? DEFAULT_TABLE_NAMES.metrics;
}

/** The database a request names, holding the metrics table it names (agno's `db_id` and `table`). */
function metricsDb(c: Context<OSEnv>, q: { db_id?: string; table?: string }): Db {
  const db = dbFor(c, q.db_id);
  if (q.table !== undefined && q.table !== metricsTableOf(db)) throw new NotFoundError(`table ${q.table} not found`);
  return db;
}

/**
 * What a caller reads of buckets, as agno's router shapes them: one owner's buckets named after
 * the owner, or (no owner) each day summed over every owner.
 */
function viewFor(buckets: MetricsBucket[], owner: string | undefined) {
  const shaped =
    owner === undefined
      ? aggregateByDate(buckets)
      : ownerBucketIds(
          buckets.filter((b) => b.user_id === owner),
          owner,
        );
  return shaped.map(dayAggregatedMetricsView);
}

const msTime = (epochMs: number | null) => (epochMs === null ? null : agnoDatetimeOf(epochMs));

/**
 * agno's `/metrics` routes. The owner a read is for is agno's resolve_db_and_scope: a non-admin
 * under user isolation (or a service account) is always themselves, anyone else names a user or
 * reads every user's. Refresh states are kept per isolate, as agno keeps them per process.
 */
export function metricsRoutes() {
  const app = routeApp();
  // keyed by the database's id: a Worker builds its Db objects per request
  const states = new Map<string, RefreshState>();
  const refreshOf = async (db: Db): Promise<MetricsBucket[]> => {
    const startedMs = Date.now();
    const ended = (error: string | null): RefreshState => ({
      status: error === null ? "completed" : "failed",
      startedMs,
      finishedMs: Date.now(),
      error,
    });
    states.set(db.id, { status: "running", startedMs, finishedMs: null, error: null });
    try {
      const written = await db.metrics.refresh();
      states.set(db.id, ended(null));
      return written;
    } catch (error) {
      // what a client may see: a driver error is logged under a reference, not quoted
      states.set(db.id, ended(publicError(error, "metrics refresh").message));
      throw error;
    }
  };

  handle(app, getMetrics, async (c) => {
    const q = c.req.valid("query");
    if (q.starting_date && q.ending_date && q.ending_date < q.starting_date)
      throw new BadRequestError("ending_date must not be before starting_date");
    const owner = scopedUserId(c) ?? q.user_id;
    const { buckets, updatedAt } = await metricsDb(c, q).metrics.list({
      startingDate: q.starting_date,
      endingDate: q.ending_date,
      userId: owner,
    });
    return c.json({ metrics: viewFor(buckets, owner), updated_at: agnoTime(updatedAt) });
  });

  handle(app, refreshMetrics, async (c) => {
    const q = c.req.valid("query");
    // resolved first, so a caller refused an identity cannot start a refresh (as agno)
    const owner = scopedUserId(c) ?? q.user_id;
    const db = metricsDb(c, q);
    if (q.background) {
      if (states.get(db.id)?.status === "running")
        return c.json(
          { status: "already_running", message: "A metrics refresh is already in progress for this database" },
          202,
        );
      const work = refreshOf(db).catch(() => undefined);
      keepAlive(c)?.(work);
      return c.json({ status: "started", message: "Metrics refresh started in background" }, 202);
    }
    return c.json(viewFor(await refreshOf(db), owner), 200);
  });

  handle(app, refreshStatus, async (c) => {
    const state = states.get(metricsDb(c, c.req.valid("query")).id);
    if (!state) return c.json({ status: "idle" as const, started_at: null, finished_at: null, error: null });
    return c.json({
      status: state.status,
      started_at: msTime(state.startedMs),
      finished_at: msTime(state.finishedMs),
      error: state.error,
    });
  });

  return app;
}
