import { z } from "zod";
import type { Db } from "../db/port.js";
import { tool, type Tool } from "../tools/tool.js";
import { DEFAULT_READ_CHARS, MAX_READ_CHARS, type ResultStore } from "./result-store.js";
import { MAX_PATTERN_CHARS, MAX_REGEX_MATCH_CHARS, MAX_REGEX_SCAN_UNITS } from "./result-search.js";
import { errorMessage } from "../errors.js";

/** The names an offloading agent reserves; their own answers are never offloaded (they are bounded reads). */
export const RESULT_TOOL_NAMES: readonly string[] = ["read_result", "search_result"];

const resultId = z.string().min(1).max(255).describe("the result_id from an offloaded tool result");
// Module-level, so the tools built for each run share one JSON Schema conversion.
const readArgs = z.object({
  result_id: resultId,
  offset: z.number().int().min(0).optional().describe("first character to read (default 0)"),
  length: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(`characters to read (default ${DEFAULT_READ_CHARS}, at most ${MAX_READ_CHARS})`),
});
const searchArgs = z.object({
  result_id: resultId,
  query: z.string().min(1).max(1000).describe("the text to find, or a regex when regex is true"),
  regex: z.boolean().optional(),
  ignore_case: z.boolean().optional(),
  context_chars: z
    .number()
    .int()
    .min(0)
    .max(500)
    .optional()
    .describe("characters of context on each side (default 80)"),
  max_matches: z.number().int().min(1).max(100).optional().describe("default 20"),
});

/**
 * `read_result` and `search_result` over one store and database. Both answer only results of the
 * calling run's session and user; any other id (another user's included) is "not found".
 */
export function resultTools(store: ResultStore, db: Db): Tool[] {
  const read = tool({
    name: "read_result",
    description:
      `Reads part of a tool result that was too long to show (its envelope has a result_id). Offsets and lengths count characters; ` +
      `length defaults to ${DEFAULT_READ_CHARS} and is at most ${MAX_READ_CHARS}. The answer has next_offset to continue from.`,
    parameters: readArgs,
    execute: (args, ctx) => store.read(db, args.result_id, { sessionId: ctx.sessionId, userId: ctx.userId }, args),
  });
  const search = tool({
    name: "search_result",
    description:
      `Finds text in a tool result that was too long to show, returning each match's character offset (for read_result) with context. ` +
      `With regex: a JavaScript regular expression (multiline: ^ and $ match at lines) of at most ${MAX_PATTERN_CHARS} characters, ` +
      `matching at most ${MAX_REGEX_MATCH_CHARS} characters, searched in the first ${MAX_REGEX_SCAN_UNITS} characters. Patterns that can backtrack ` +
      `badly are refused (repeated groups with quantifiers or alternations inside, overlapping repeats in a row, backreferences); ` +
      `no need to wrap a pattern in .* since matches come with context.`,
    parameters: searchArgs,
    execute: async (args, ctx) => {
      const found = await store.search(
        db,
        args.result_id,
        { sessionId: ctx.sessionId, userId: ctx.userId },
        {
          query: args.query,
          regex: args.regex,
          ignoreCase: args.ignore_case,
          contextChars: args.context_chars,
          maxMatches: args.max_matches,
        },
      );
      return { ...found, query: args.query, regex: args.regex ?? false };
    },
  });
  return [read, search];
}

/** A tool's answer as the run records it (the tool runner's shape). */
interface Answer {
  text: string;
  error: boolean;
}

/**
 * The run's answer filter when offload is on: an answer over the threshold is stored and
 * replaced by its envelope before anything (the model, events, the stored run) sees it. If it
 * cannot be stored, the model gets an error saying so instead of the oversized text.
 */
export function offloadAnswers(store: ResultStore, db: Db) {
  return async (
    answer: Answer,
    call: { tool_call_id: string; tool_name: string; tool_args: Record<string, unknown> },
    ctx: { runId: string; sessionId: string; userId: string | null },
  ): Promise<Answer> => {
    if (RESULT_TOOL_NAMES.includes(call.tool_name)) return answer;
    const origin = {
      sessionId: ctx.sessionId,
      runId: ctx.runId,
      userId: ctx.userId,
      toolCallId: call.tool_call_id,
      toolName: call.tool_name,
      args: call.tool_args,
    };
    try {
      const envelope = await store.offload(db, answer.text, origin);
      return envelope === null ? answer : { text: envelope, error: answer.error };
    } catch (error) {
      const why = errorMessage(error);
      return {
        text: `Error: the tool answered ${answer.text.length} characters, too many to show, and storing them for read_result failed: ${why}`,
        error: true,
      };
    }
  };
}
