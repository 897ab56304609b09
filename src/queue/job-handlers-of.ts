import type { JobHandler } from "./job-handler.js";

/** The job types the queue runs itself: a handler cannot take them over. */
const BUILT_IN = new Set(["run", "run_continue", "knowledge_ingestion", "eval_run"]);

/**
 * The job handlers the components bring (an agent's toolkits'), one per job type: the same
 * handler reached through several agents counts once; of two distinct handlers of one type, the
 * first is kept (several instances of one toolkit share its job type, so a deployment runs that
 * type's jobs with the first one's settings). A handler naming a built-in type is a configuration error.
 */
export function jobHandlersOf(
  components: ReadonlyArray<{ readonly jobHandlers?: readonly JobHandler[] }>,
): JobHandler[] {
  const byType = new Map<string, JobHandler>();
  for (const handler of components.flatMap((c) => c.jobHandlers ?? [])) {
    if (BUILT_IN.has(handler.jobType))
      throw new TypeError(`job type ${handler.jobType} is the queue's own: a job handler cannot take it over`);
    if (!byType.has(handler.jobType)) byType.set(handler.jobType, handler);
  }
  return [...byType.values()];
}
