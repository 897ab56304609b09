import { z } from "zod";
import { errorMessage } from "../errors.js";
import { tool, type Tool } from "../tools/tool.js";
import { documentToDict } from "./document.js";
import type { KnowledgeFilters } from "./filters.js";
import type { Knowledge } from "./knowledge.js";
import type { TraceScope } from "../tracing/trace-scope.js";

/** agno's MessageReferences: what one retrieval found, stored on the run as `references`. */
export interface MessageReferences {
  query: string;
  references: Array<Record<string, unknown> | string>;
  /** seconds the retrieval took */
  time?: number;
}

/** Where a retrieval's references go: the run's output (its `references` list). */
export interface ReferenceSink {
  references?: MessageReferences[];
}

/** The options an agent or a team takes to use a knowledge base (agno's names, camelCase). */
export interface KnowledgeUseOptions {
  knowledge?: Knowledge;
  /** give the model `search_knowledge_base` (default true when knowledge is set, as agno) */
  searchKnowledge?: boolean;
  /** search with the run's input before the model and add what is found to the user message (default false) */
  addKnowledgeToContext?: boolean;
  /** filters every search of this agent applies */
  knowledgeFilters?: KnowledgeFilters;
}

/** Who is searching: the run's user (their contents and shared ones) and session. */
export interface RetrievalContext {
  userId: string | null;
  sessionId?: string;
  /** where the search is traced (the tool call's span), when the run is */
  trace?: TraceScope;
}

/** agno's get_relevant_docs_from_knowledge: the documents as dicts (name, meta_data, content). */
async function relevantDocs(
  knowledge: Knowledge,
  query: string,
  filters: KnowledgeFilters | undefined,
  ctx: RetrievalContext,
): Promise<Array<Record<string, unknown>>> {
  const span = ctx.trace?.tracer.startSpan("knowledge.search", {
    parent: ctx.trace.parent,
    attributes: {
      "openinference.span.kind": "RETRIEVER",
      "agno.knowledge.id": knowledge.id,
      "agno.knowledge.name": knowledge.name,
      "input.value": query,
      "agno.knowledge.filtered": filters !== undefined,
    },
  });
  try {
    // a run without a user searches the shared contents only (null), never every user's
    const docs = await knowledge.search(query, {
      filters,
      userId: ctx.userId,
      runContext: { userId: ctx.userId, sessionId: ctx.sessionId ?? null },
    });
    span?.set("agno.knowledge.documents", docs.length).setStatus("OK");
    return docs.map((d) => documentToDict(d) as Record<string, unknown>);
  } catch (error) {
    span?.fail(errorMessage(error));
    throw error;
  } finally {
    span?.end();
  }
}

function track(sink: ReferenceSink | undefined, query: string, docs: Array<Record<string, unknown>>, started: number) {
  if (!sink || !docs.length) return;
  (sink.references ??= []).push({ query, references: docs, time: Math.round(performance.now() - started) / 1000 });
}

/**
 * agno's `search_knowledge_base` tool: searches the knowledge base as the run's user, records
 * what it found on the run (`references`), and answers the documents as JSON, "No documents
 * found", or (a failure) "Error searching knowledge base: <kind>" so the model can go on.
 */
export function knowledgeSearchTool(
  knowledge: Knowledge,
  opts: { filters?: KnowledgeFilters; sink?: ReferenceSink } = {},
): Tool {
  return tool({
    name: "search_knowledge_base",
    description: "Use this function to search the knowledge base for information about a query.",
    parameters: z.object({ query: z.string().describe("The query to search for.") }),
    execute: async ({ query }, ctx) => {
      const started = performance.now();
      let docs: Array<Record<string, unknown>>;
      try {
        docs = await relevantDocs(knowledge, query, opts.filters, {
          userId: ctx.userId,
          sessionId: ctx.sessionId,
          ...(ctx.trace ? { trace: ctx.trace } : {}),
        });
      } catch (err) {
        return `Error searching knowledge base: ${err instanceof Error ? err.name : errorMessage(err)}`;
      }
      track(opts.sink, query, docs, started);
      return docs.length ? JSON.stringify(docs, null, 2) : "No documents found";
    },
  });
}

/**
 * agno's add_knowledge_to_context: searches with the run's input and returns the text appended to
 * the user message (empty when nothing is found), recording the references on the run. A failed
 * search leaves the message as it was: the run goes on without references.
 */
export async function knowledgeContext(
  knowledge: Knowledge,
  input: string,
  ctx: RetrievalContext,
  opts: { filters?: KnowledgeFilters; sink?: ReferenceSink } = {},
): Promise<string> {
  if (!input.trim()) return "";
  const started = performance.now();
  let docs: Array<Record<string, unknown>>;
  try {
    docs = await relevantDocs(knowledge, input, opts.filters, ctx);
  } catch {
    return "";
  }
  track(opts.sink, input, docs, started);
  if (!docs.length) return "";
  return (
    "\n\nUse the following references from the knowledge base if it helps:\n<references>\n" +
    JSON.stringify(docs, null, 2) +
    "\n</references>"
  );
}
