import { inject } from "vitest";
import { MemoryDb } from "../../src/db/memory/index.js";
import { createModel } from "../../src/models/providers.js";
import type { Model } from "../../src/models/model.js";
import { scriptModel, type ModelScript, type Turn } from "./model-script.js";

const MODEL_IDS = { openai: "gpt-test", anthropic: "claude-test", google: "gemini-test" } as const;

/** A model whose answers are scripted turns, reached through the real provider package. */
export async function scriptedModel(
  turns: Turn[],
  provider: keyof typeof MODEL_IDS = "openai",
  opts: { maxRetries?: number } = {},
): Promise<{ model: Model; script: ModelScript }> {
  const script = await scriptModel(inject("modelServerUrl"), turns);
  const model = createModel(`${provider}:${MODEL_IDS[provider]}`, {
    credentials: { [provider]: { apiKey: "test-key", baseURL: script.baseURL } },
    maxRetries: opts.maxRetries,
  });
  return { model, script };
}

/** Collects an event stream. */
export async function collect<T>(events: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const e of events) out.push(e);
  return out;
}

/**
 * A MemoryDb where an agent test would open a database: for tests that use storage only as
 * storage (the Db contract holds it to the Postgres adapter's rules), so they need no Postgres.
 */
export function memoryTestDb(): { db: MemoryDb; close(): Promise<void> } {
  return { db: new MemoryDb(), close: async () => {} };
}
