import { z } from "zod";
import type { Db } from "../db/port.js";
import { tool, type Tool } from "../tools/tool.js";

/**
 * `search_past_sessions`: the user's most recent other sessions, with their last exchanges,
 * filtered by a query when one is given. Only the calling user's sessions are searched.
 */
export function pastSessionsTool(db: Db, sessions: number, runsPerSession: number): Tool {
  return tool({
    name: "search_past_sessions",
    description: "Search the user's earlier conversations. Returns recent sessions with their last messages.",
    parameters: z.object({
      query: z.string().max(500).optional().describe("text to look for; omit to list recent sessions"),
    }),
    execute: async ({ query }, ctx) => {
      if (!ctx.userId) return "No user is known for this run, so there are no past sessions to search.";
      const page = await db.getSessions({
        userId: ctx.userId,
        limit: sessions + 1,
        sortBy: "updated_at",
        includeRuns: true,
      });
      const needle = query?.toLowerCase();
      const found = page.data
        .filter((s) => s.sessionId !== ctx.sessionId)
        .slice(0, sessions)
        .map((s) => ({
          session_id: s.sessionId,
          session_name: (s.record.session_data?.session_name as string | undefined) ?? "",
          messages: s
            .getChatHistory()
            .slice(-2 * runsPerSession)
            .map((m) => ({ role: m.role, content: m.content })),
        }))
        .filter((s) => !needle || JSON.stringify(s).toLowerCase().includes(needle));
      return found.length ? found : "No matching past sessions.";
    },
  });
}
