/**
 * What a run's two writes cost the server, and what its durable commit waits for (BENCHMARKS,
 * run S). Per Postgres target, over node-postgres (`agno-edge/pg`):
 *
 * - one agent run (one tool call, scripted model) records the run's opening write (the session
 *   with the run) and its final write as they were sent; each is then replayed REPLAYS times
 *   inside a transaction that is rolled back, plainly and as a prepared statement, alternating,
 *   and the medians are the statement's round trip with and without parsing and planning;
 * - a one-row insert of a run-sized JSONB document, committed REPLAYS times with
 *   `synchronous_commit` on and off, alternating: the difference is the log flush a durable
 *   final write waits for.
 *
 * Times from this machine; compare within one run.
 */
import pg from "pg";
import { z } from "zod";
import { scriptModel } from "../../test/support/model-script.js";
import { startModelServer } from "../../test/support/model-server.js";
import { Agent } from "../../src/agent/agent.js";
import { nodePostgresDb } from "../../src/db/postgres/node-postgres-db.js";
import { createModel } from "../../src/models/providers.js";
import { tool } from "../../src/tools/tool.js";
import { emit, log, median, round } from "./util.js";

const REPLAYS = 200;
const WRITES = { session_with_run: "opening write", run_update: "final write" } as const;

type Sent = { name?: string; text: string; values: unknown[] };

export async function benchRunWrites(opts: { dbTargets: Array<{ name: string; url: string }> }): Promise<void> {
  const models = await startModelServer();
  try {
    for (const target of opts.dbTargets) await measure(target, models.url);
  } finally {
    await models.stop();
  }
}

async function measure(target: { name: string; url: string }, modelServerUrl: string): Promise<void> {
  const schema = `bench_writes_${process.pid}_${Date.now().toString(36)}`;
  const pool = new pg.Pool({ connectionString: target.url, max: 2 });
  try {
    const sent = await oneRunsWrites(pool, schema, modelServerUrl);
    const client = await pool.connect();
    try {
      for (const [key, what] of Object.entries(WRITES)) {
        const statement = sent.find((s) => s.name?.startsWith(`agno_${key}_`));
        if (!statement) throw new Error(`the run sent no ${what} (${key})`);
        const plain: number[] = [];
        const prepared: number[] = [];
        for (let i = 0; i < REPLAYS; i++) {
          plain.push(await rolledBack(client, { text: statement.text, values: statement.values }));
          prepared.push(await rolledBack(client, statement));
        }
        emit({
          bench: "run_write_statement_ms",
          db: target.name,
          write: key,
          replays: REPLAYS,
          plain_median_ms: round(median(plain), 3),
          prepared_median_ms: round(median(prepared), 3),
        });
        log(`${target.name}: ${what} ${round(median(plain), 3)} ms plain, ${round(median(prepared), 3)} ms prepared`);
      }
      await client.query(`CREATE TABLE "${schema}".flush_probe (doc jsonb)`);
      const doc = JSON.stringify(sent.at(-1)?.values ?? []);
      const durable: number[] = [];
      const deferred: number[] = [];
      for (let i = 0; i < REPLAYS; i++) {
        for (const [mode, into] of [
          ["on", durable],
          ["off", deferred],
        ] as const) {
          await client.query(`SET synchronous_commit = ${mode}`);
          const started = performance.now();
          await client.query(`INSERT INTO "${schema}".flush_probe VALUES ($1::jsonb)`, [doc]);
          into.push(performance.now() - started);
        }
      }
      await client.query("RESET synchronous_commit");
      emit({
        bench: "durable_commit_flush_ms",
        db: target.name,
        commits: REPLAYS,
        document_chars: doc.length,
        synchronous_commit_on_median_ms: round(median(durable), 3),
        synchronous_commit_off_median_ms: round(median(deferred), 3),
        flush_ms: round(median(durable) - median(deferred), 3),
      });
    } finally {
      client.release();
    }
  } finally {
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  }
}

/** One agent run into a new session; the statements the pool was sent, as they were sent. */
async function oneRunsWrites(pool: pg.Pool, schema: string, modelServerUrl: string): Promise<Sent[]> {
  const sent: Sent[] = [];
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  (pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const config = args[0] as { name?: string; text?: string } | string;
    if (typeof config === "object" && config.text)
      sent.push({ name: config.name, text: config.text, values: (args[1] as unknown[]) ?? [] });
    return query(...args);
  };
  const db = nodePostgresDb({ pool, schema, id: "bench" });
  await db.init();
  const script = await scriptModel(modelServerUrl, [
    { toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }] },
    { text: "Sunny." },
  ]);
  const agent = new Agent({
    model: createModel("openai:gpt-test", { credentials: { openai: { apiKey: "bench", baseURL: script.baseURL } } }),
    tools: [
      tool({
        name: "get_weather",
        description: "The weather in a city.",
        parameters: z.object({ city: z.string() }),
        execute: ({ city }) => ({ city, celsius: 21 }),
      }),
    ],
    db,
  });
  const out = await agent.run("What is the weather in Paris?");
  if (out.status !== "COMPLETED") throw new Error(`the run ended ${out.status}`);
  return sent;
}

/** One statement's round trip inside a transaction that is rolled back, so every replay writes the same rows. */
async function rolledBack(client: pg.PoolClient, statement: Sent): Promise<number> {
  await client.query("BEGIN");
  try {
    const started = performance.now();
    await client.query(statement);
    return performance.now() - started;
  } finally {
    await client.query("ROLLBACK");
  }
}
