import { bigint, jsonb, pgSchema, pgTable, varchar } from "drizzle-orm/pg-core";
import type { RunRecord, RunType, SessionType } from "../types.js";
import { checkIdentifier, type TableNames } from "./names.js";

/**
 * drizzle definitions of the tables the adapter reads and writes, built per configured schema
 * and names. The DDL that creates them lives in `migrations/`; these only describe them.
 */

/** Table objects by schema and names: every request's PostgresDb uses the same few, and building them is not free. */
const built = new Map<string, ReturnType<typeof buildTables>>();

/** drizzle's table objects for a schema and its table names (built once per isolate and reused). */
export function agnoTables(schema: string, names: TableNames): ReturnType<typeof buildTables> {
  const key = JSON.stringify([schema, names]);
  let tables = built.get(key);
  if (!tables) built.set(key, (tables = buildTables(schema, names)));
  return tables;
}

function buildTables(schema: string, names: TableNames) {
  // drizzle refuses pgSchema("public"): tables there are plain pgTable ones.
  const table = (schema === "public" ? pgTable : pgSchema(checkIdentifier(schema, "schema")).table) as typeof pgTable;
  const sessions = table(checkIdentifier(names.sessions, "table name"), {
    session_id: varchar("session_id").primaryKey(),
    session_type: varchar("session_type").$type<SessionType>().notNull(),
    agent_id: varchar("agent_id"),
    team_id: varchar("team_id"),
    workflow_id: varchar("workflow_id"),
    user_id: varchar("user_id"),
    session_data: jsonb("session_data").$type<Record<string, unknown>>(),
    agent_data: jsonb("agent_data").$type<Record<string, unknown>>(),
    team_data: jsonb("team_data").$type<Record<string, unknown>>(),
    workflow_data: jsonb("workflow_data").$type<Record<string, unknown>>(),
    metadata: jsonb("metadata").$type<Record<string, unknown>>(),
    summary: jsonb("summary").$type<Record<string, unknown>>(),
    created_at: bigint("created_at", { mode: "number" }).notNull(),
    updated_at: bigint("updated_at", { mode: "number" }),
  });
  const runs = table(checkIdentifier(names.runs, "table name"), {
    run_id: varchar("run_id").primaryKey(),
    session_id: varchar("session_id").notNull(),
    run_type: varchar("run_type").$type<RunType>().notNull(),
    agent_id: varchar("agent_id"),
    team_id: varchar("team_id"),
    workflow_id: varchar("workflow_id"),
    user_id: varchar("user_id"),
    parent_run_id: varchar("parent_run_id"),
    status: varchar("status"),
    run_index: bigint("run_index", { mode: "number" }),
    run_data: jsonb("run_data").$type<RunRecord>().notNull(),
    created_at: bigint("created_at", { mode: "number" }).notNull(),
    updated_at: bigint("updated_at", { mode: "number" }),
  });
  const versions = table(checkIdentifier(names.versions, "table name"), {
    table_name: varchar("table_name").primaryKey(),
    version: varchar("version").notNull(),
    created_at: varchar("created_at").notNull(),
    updated_at: varchar("updated_at"),
  });
  return { sessions, runs, versions };
}

export type AgnoTables = ReturnType<typeof agnoTables>;
