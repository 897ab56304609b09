import { z } from "zod";
import type { Db, LearningRecord } from "../../db/port.js";
import { tool, type Tool } from "../../tools/tool.js";
import type { DecisionLogConfig } from "../config.js";
import type { DecisionLog } from "../schemas.js";
import { isoNow, valuesMatchQuery } from "../utils.js";
import type { LearningScope, LearningStore, ProcessInput } from "./protocol.js";

/** Tool parameters, made once: their JSON Schemas are converted once per isolate. */
const LOG_DECISION = z.object({
  decision: z.string().min(1).max(2_000).describe("What you decided to do"),
  reasoning: z.string().max(4_000).optional().describe("Why you made this decision"),
  decision_type: z.string().max(100).optional().describe("tool_selection, response_style, clarification, …"),
  context: z.string().max(4_000).optional().describe("The situation that required this decision"),
  alternatives: z.string().max(2_000).optional().describe("Other options you considered (comma-separated)"),
  confidence: z.number().min(0).max(1).optional().describe("How confident you are (0.0 to 1.0)"),
});
const RECORD_OUTCOME = z.object({
  decision_id: z.string().min(1).max(255),
  outcome: z.string().min(1).max(4_000),
  outcome_quality: z.string().max(100).optional().describe("good, bad or neutral"),
});
const SEARCH_DECISIONS = z.object({
  query: z.string().max(500).optional(),
  decision_type: z.string().max(100).optional(),
  days: z.number().int().min(1).max(3650).optional(),
  limit: z.number().int().min(1).max(50).optional(),
});

/**
 * Decision log (agno's DecisionLogStore): what the agent decided and why, one `decision_log`
 * row per decision (`dec_<8 hex>`), carrying the run's session, run, user and agent. Agentic
 * only, as agno: the agent calls `log_decision`, later `record_outcome`.
 *
 * Unlike agno, reads are scoped to the run's user (a run without one reads the decisions logged
 * without one): agno recalls every user's decisions of the agent into each user's system
 * message, where one user's text would reach another's prompt.
 */
export class DecisionLogStore implements LearningStore {
  readonly learningType = "decision_log";

  constructor(readonly config: DecisionLogConfig = {}) {}

  private get exposesTools(): boolean {
    return this.config.enableAgentTools !== false;
  }

  async save(db: Db, decision: DecisionLog): Promise<void> {
    await db.upsertLearning({
      learning_id: decision.id,
      learning_type: this.learningType,
      user_id: decision.user_id ?? null,
      agent_id: decision.agent_id ?? null,
      team_id: decision.team_id ?? null,
      session_id: decision.session_id ?? null,
      content: decision as unknown as Record<string, unknown>,
    });
  }

  /** The decisions a scope may read, newest first. */
  async search(
    scope: Pick<LearningScope, "db" | "userId" | "agentId">,
    opts: { query?: string; decisionType?: string; days?: number; sessionId?: string; limit?: number } = {},
  ): Promise<DecisionLog[]> {
    const limit = opts.limit ?? 10;
    const page = await scope.db.listLearnings({
      learningType: this.learningType,
      agentId: scope.agentId,
      ...(scope.userId ? { userId: scope.userId } : {}),
      ...(opts.sessionId ? { sessionId: opts.sessionId } : {}),
      limit: opts.query || opts.decisionType || opts.days ? Math.min(limit * 20, 1000) : limit,
      sortBy: "created_at",
      sortOrder: "desc",
    });
    const since = opts.days ? Date.now() - opts.days * 86_400_000 : null;
    return page.data
      .filter((r) => scope.userId || r.user_id === null)
      .map(toDecision)
      .filter((d) => !opts.decisionType || d.decision_type === opts.decisionType)
      .filter((d) => since === null || (d.created_at ? Date.parse(d.created_at) >= since : false))
      .filter((d) => !opts.query || valuesMatchQuery({ d: d.decision, r: d.reasoning, c: d.context }, opts.query))
      .slice(0, limit);
  }

  async recall(scope: LearningScope): Promise<DecisionLog[]> {
    return this.search(scope, { limit: this.config.maxDecisionsInContext ?? 5 });
  }

  buildContext(data: unknown): string {
    const decisions = (data as DecisionLog[] | null) ?? [];
    if (decisions.length === 0)
      return this.exposesTools ? "<decision_log>\nNo recent decisions logged.\n</decision_log>" : "";
    const lines = ["<decision_log>", "Recent decisions:", ""];
    for (const d of decisions.slice(0, 5)) {
      lines.push(`- **${d.decision}**`);
      if (d.reasoning) lines.push(`  Reasoning: ${d.reasoning}`);
      if (d.outcome) lines.push(`  Outcome: ${d.outcome}`);
      lines.push("");
    }
    lines.push("</decision_log>");
    return lines.join("\n");
  }

  instructions(): string {
    if (!this.exposesTools) return "";
    return [
      "<decision_log_instructions>",
      "Use `log_decision` to record significant decisions with reasoning.",
      "Use `search_decisions` to find past decisions.",
      "Use `record_outcome` to update a decision with its outcome.",
      "</decision_log_instructions>",
    ].join("\n");
  }

  tools(db: () => Db | undefined, agentId: string): Tool[] {
    if (!this.exposesTools) return [];
    const noDb = "No database is configured: decisions are not logged.";
    const tools: Tool[] = [];
    if (this.config.agentCanSave !== false) {
      tools.push(
        tool({
          name: "log_decision",
          description:
            "Log a significant decision with reasoning: a tool choice, a response style, asking for clarification, choosing between approaches.",
          parameters: LOG_DECISION,
          execute: async (args, ctx) => {
            const store = db();
            if (!store) return noDb;
            const id = `dec_${crypto.randomUUID().replace(/-/g, "").slice(0, 8)}`;
            await this.save(store, {
              id,
              decision: args.decision,
              reasoning: args.reasoning ?? null,
              decision_type: args.decision_type ?? null,
              context: args.context ?? null,
              alternatives: args.alternatives
                ? args.alternatives
                    .split(",")
                    .map((a) => a.trim())
                    .filter(Boolean)
                : null,
              confidence: args.confidence ?? null,
              session_id: ctx.sessionId,
              run_id: ctx.runId,
              user_id: ctx.userId,
              agent_id: agentId,
              created_at: isoNow(),
            });
            return `Decision logged: ${id}`;
          },
        }),
        tool({
          name: "record_outcome",
          description: "Record the outcome of a previous decision.",
          parameters: RECORD_OUTCOME,
          execute: async (args, ctx) => {
            const store = db();
            if (!store) return noDb;
            const row = await store.getLearning(args.decision_id).catch(() => null);
            // Another user's decision is as missing as one that never was.
            if (
              !row ||
              row.learning_type !== this.learningType ||
              row.agent_id !== agentId ||
              (row.user_id !== null && row.user_id !== ctx.userId)
            )
              return `Decision ${args.decision_id} not found`;
            const decision = toDecision(row);
            await store.updateLearning(row.learning_id, {
              content: {
                ...decision,
                outcome: args.outcome,
                outcome_quality: args.outcome_quality ?? null,
                updated_at: isoNow(),
              },
              metadata: row.metadata,
            });
            return `Outcome recorded for decision ${args.decision_id}`;
          },
        }),
      );
    }
    if (this.config.agentCanSearch !== false)
      tools.push(
        tool({
          name: "search_decisions",
          description: "Search past decisions.",
          parameters: SEARCH_DECISIONS,
          execute: async (args, ctx) => {
            const store = db();
            if (!store) return noDb;
            const found = await this.search(
              { db: store, userId: ctx.userId, agentId },
              { query: args.query, decisionType: args.decision_type, days: args.days, limit: args.limit ?? 5 },
            );
            if (found.length === 0) return "No matching decisions found.";
            return found
              .map(
                (d) =>
                  `[${d.id}] ${d.decision}${d.reasoning ? ` - ${d.reasoning.slice(0, 50)}...` : ""}${d.outcome ? ` -> ${d.outcome.slice(0, 30)}...` : ""}`,
              )
              .join("\n");
          },
        }),
      );
    return tools;
  }

  /** Agentic only, as agno: capture happens through the tools. */
  async process(_input: ProcessInput): Promise<void> {}
}

function toDecision(row: LearningRecord): DecisionLog {
  const c = row.content as Partial<DecisionLog>;
  return { ...c, id: c.id ?? row.learning_id, decision: c.decision ?? "" };
}
