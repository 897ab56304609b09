import type { z } from "zod";
import { componentOrigin } from "./component-origin.js";
import type { Agent } from "../agent/agent.js";
import type { Db } from "../db/port.js";
import { DEFAULT_TABLE_NAMES, type TableNames } from "../db/postgres/names.js";
import type { Model } from "../models/model.js";
import type { agentResponseSchema } from "./wire/agents.js";

type AgentResponse = z.infer<typeof agentResponseSchema>;

/** A block of agno's agent detail: only the keys that hold something, or nothing at all (agno's `filter_meaningful_config`). */
function meaningful<T extends Record<string, unknown>>(block: T): T | undefined {
  const kept = Object.fromEntries(Object.entries(block).filter(([, v]) => v !== undefined && v !== null));
  return Object.keys(kept).length > 0 ? (kept as T) : undefined;
}

/** A model as agno's `ModelResponse(...).model_dump()` nests it in a block: agno-edge models have no class name. */
const dumpedModel = (model: Model) => ({ name: null, model: model.id, provider: model.provider });

/** The table a database stores `kind` in: its own names when it has them (Postgres), else agno's. */
function tableOf(db: Db | undefined, kind: keyof TableNames): string | undefined {
  if (!db) return undefined;
  return (db as Partial<{ names: TableNames }>).names?.[kind] ?? DEFAULT_TABLE_NAMES[kind];
}

/**
 * agno's AgentResponse for one agent: what it is and how it is set up, each block holding only
 * what differs from agno's defaults (an unset feature is absent, as agno leaves it out).
 */
export function agentResponse(agent: Agent, db: Db | undefined): AgentResponse {
  const { options: o, tools, reasoningModel, memoryModel } = agent.configuration;
  const instructions = typeof o.instructions === "function" ? undefined : o.instructions;
  return {
    id: agent.id,
    ...(agent.name !== undefined && { name: agent.name }),
    ...(db && { db_id: db.id }),
    ...(agent.description !== undefined && { description: agent.description }),
    is_factory: false,
    model: { model: agent.model.id, provider: agent.model.provider },
    tools: meaningful({
      tools:
        tools.length > 0
          ? tools.map((t) => ({
              name: t.name,
              ...(t.description !== undefined && { description: t.description }),
              parameters: t.definition().parameters,
              requires_confirmation: t.requiresConfirmation === true || t.requiresApproval === true,
              external_execution: t.externalExecution === true,
              ...(t.requiresApproval && { approval_type: "required" as const }),
            }))
          : undefined,
      tool_call_limit: o.toolCallLimit,
    }),
    sessions: meaningful({
      session_table: tableOf(db, "sessions"),
      add_history_to_context: o.addHistoryToContext || undefined,
      enable_session_summaries: o.enableSessionSummaries || undefined,
      num_history_runs: o.numHistoryRuns !== undefined && o.numHistoryRuns !== 3 ? o.numHistoryRuns : undefined,
      search_past_sessions: o.searchPastSessions || undefined,
      num_past_sessions_to_search: o.searchPastSessions ? (o.numPastSessionsToSearch ?? 3) : undefined,
      num_past_session_runs_in_search: o.searchPastSessions ? (o.numPastSessionRunsInSearch ?? 3) : undefined,
    }),
    ...(memoryModel && {
      memory: {
        ...(o.enableAgenticMemory && { enable_agentic_memory: true }),
        ...(o.updateMemoryOnRun && { update_memory_on_run: true }),
        ...(tableOf(db, "memories") && { memory_table: tableOf(db, "memories") }),
        model: dumpedModel(memoryModel),
      },
    }),
    reasoning: {
      reasoning: reasoningModel !== undefined,
      ...(reasoningModel && { reasoning_model: dumpedModel(reasoningModel) }),
    },
    system_message: meaningful({ description: agent.description, instructions }),
    response_settings: meaningful({ output_schema_name: o.outputSchema ? (o.outputSchemaName ?? "json") : undefined }),
    ...componentOrigin(agent.stored),
  } satisfies AgentResponse;
}
