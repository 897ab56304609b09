import type { TokenUsage } from "../models/model.js";
import { emptyUsage } from "../models/model.js";
import type { RunMetrics } from "./run-output.js";

export const emptyMetrics = (): RunMetrics => ({ ...emptyUsage(), details: { model: [] } });

/** Adds one model call to the run's totals; the first call's time to first token is the run's. */
export function addModelCall(
  metrics: RunMetrics,
  call: { id: string; provider: string; usage: TokenUsage; timeToFirstToken?: number; duration: number; cost?: number },
): void {
  for (const key of Object.keys(emptyUsage()) as Array<keyof TokenUsage>) metrics[key] += call.usage[key];
  metrics.time_to_first_token ??= call.timeToFirstToken;
  if (call.cost !== undefined) metrics.cost = (metrics.cost ?? 0) + call.cost;
  metrics.details ??= { model: [] };
  metrics.details.model.push({
    id: call.id,
    provider: call.provider,
    ...call.usage,
    time_to_first_token: call.timeToFirstToken,
    duration: call.duration,
    cost: call.cost,
  });
}
