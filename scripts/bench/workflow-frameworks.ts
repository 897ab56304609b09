/**
 * One adapter per framework compared by the workflow figures: a workflow of `steps` function
 * steps in a row, each adding 1 to the number it is handed (the first gets the run's input, 0),
 * run once per call to its final number. agno-edge: `new Workflow({steps: [new Step(...)]})`,
 * in memory or on a PostgresDb; Mastra: `createWorkflow().then(createStep(...))...commit()`,
 * `createRun()` and `start()`; LangGraph.js: a StateGraph of `steps` nodes in a line, compiled
 * once, `invoke()`. The floor: the same functions awaited in a plain loop.
 */
import { readFileSync } from "node:fs";
import { Pool } from "@neondatabase/serverless";
import ws from "ws";
import { useLocalWsProxy } from "../../src/db/postgres/local-proxy.js";
import { DEFAULT_TABLE_NAMES } from "../../src/db/postgres/names.js";
import { PostgresDb } from "../../src/db/postgres/postgres-db.js";
import { Step, Workflow, type StepInput, type WorkflowOptions } from "../../src/workflow/index.js";
import type { DbConfig } from "./frameworks.js";
import { importPeer, peerVersion } from "./peers.js";
import { countStatements } from "./statement-counter.js";

/** What the agno-edge workflow with a db is built with beyond its name, steps and db (the figures' lines carry it as `workflow_options`). */
export const WORKFLOW_DB_OPTIONS: Partial<WorkflowOptions> = {};

export interface WorkflowRunner {
  framework: string;
  package: string;
  version: string;
  storage?: string;
  /** one run from 0 to its final number (which must be `steps`) */
  run(): Promise<number>;
  /** the steps executed and what the db holds after `runs` runs; throws when the runs did something else */
  check(runs: number): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/** Counts step executions, so a framework that skipped or repeated a step fails the bench. */
class StepCounter {
  n = 0;
  check(runs: number, steps: number): { step_executions: number } {
    if (this.n !== runs * steps) throw new Error(`${this.n} step executions in ${runs} runs of ${steps} steps`);
    return { step_executions: this.n };
  }
}

// -- agno-edge -----------------------------------------------------------------------------

/** agno-edge's workflow; `durable`: each step saves a checkpoint, as the queue's runs do. */
async function agnoEdge(steps: number, db?: DbConfig, durable = false): Promise<WorkflowRunner> {
  let pool: Pool | undefined;
  let store: PostgresDb | undefined;
  let statements: { readonly count: number } | undefined;
  if (db) {
    useLocalWsProxy(db.wsProxy, ws);
    pool = new Pool({ connectionString: db.url, max: 4 });
    store = new PostgresDb({ pool, schema: db.schema, id: "bench" });
    const state = await store.init();
    if (state !== "current") throw new Error(`the bench schema reads as ${state}, not current`);
    statements = countStatements(pool);
  }
  const counter = new StepCounter();
  const flow = new Workflow({
    name: "bench",
    steps: Array.from(
      { length: steps },
      (_, i) =>
        new Step({
          name: `step-${i + 1}`,
          executor: (input: StepInput) => {
            counter.n++;
            return Number(i === 0 ? input.input : input.previous_step_content) + 1;
          },
        }),
    ),
    ...(store && { db: store, ...WORKFLOW_DB_OPTIONS }),
  });
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    name: string;
    version: string;
  };
  const count = async (table: string) =>
    (await pool!.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${db!.schema}"."${table}"`)).rows[0]!.n;
  return {
    framework: "agno-edge",
    package: pkg.name,
    version: pkg.version,
    ...(store && { storage: `PostgresDb (${pkg.name} ${pkg.version})` }),
    run: async () => {
      const out = await flow.run(0, { durable });
      if (out.status !== "COMPLETED")
        throw new Error(`workflow run ended ${out.status}: ${JSON.stringify(out.content)}`);
      return Number(out.content);
    },
    check: async (runs) => {
      const executed = counter.check(runs, steps);
      if (!pool) return executed;
      const perRun = statements!.count / runs;
      // One session and one run row per run (the steps' outputs live in the run row).
      const [sessions, rows] = [await count(DEFAULT_TABLE_NAMES.sessions), await count(DEFAULT_TABLE_NAMES.runs)];
      if (sessions !== runs || rows !== runs)
        throw new Error(`${sessions} sessions and ${rows} run rows for ${runs} runs; expected ${runs} of each`);
      return {
        ...executed,
        statements_per_run: Number(perRun.toFixed(2)),
        stored_sessions: sessions,
        stored_run_rows: rows,
        workflow_options: WORKFLOW_DB_OPTIONS,
        checkpoint_per_step: durable,
      };
    },
    close: async () => {
      if (!pool) return;
      await pool.query(`DROP SCHEMA IF EXISTS "${db!.schema}" CASCADE`);
      await pool.end();
    },
  };
}

// -- Mastra --------------------------------------------------------------------------------

interface PeerZod {
  z: { object(shape: Record<string, unknown>): unknown; number(): unknown };
}
interface MastraWorkflow {
  then(step: unknown): MastraWorkflow;
  commit(): MastraWorkflow;
  createRun(): Promise<{
    start(args: { inputData: { n: number } }): Promise<{ status: string; result?: { n: number }; error?: unknown }>;
  }>;
}
interface MastraWorkflowsModule {
  createWorkflow(opts: { id: string; inputSchema: unknown; outputSchema: unknown }): MastraWorkflow;
  createStep(opts: {
    id: string;
    inputSchema: unknown;
    outputSchema: unknown;
    execute(args: { inputData: { n: number } }): Promise<{ n: number }>;
  }): unknown;
}

async function mastra(steps: number): Promise<WorkflowRunner> {
  const [{ createWorkflow, createStep }, { z }] = await Promise.all([
    importPeer<MastraWorkflowsModule>("@mastra/core/workflows"),
    importPeer<PeerZod>("zod"),
  ]);
  const counter = new StepCounter();
  const schema = z.object({ n: z.number() });
  let flow = createWorkflow({ id: "bench", inputSchema: schema, outputSchema: schema });
  for (let i = 0; i < steps; i++)
    flow = flow.then(
      createStep({
        id: `step-${i + 1}`,
        inputSchema: schema,
        outputSchema: schema,
        execute: async ({ inputData }) => {
          counter.n++;
          return { n: inputData.n + 1 };
        },
      }),
    );
  flow.commit();
  return {
    framework: "mastra",
    package: "@mastra/core",
    version: peerVersion("@mastra/core"),
    run: async () => {
      const out = await (await flow.createRun()).start({ inputData: { n: 0 } });
      if (out.status !== "success") throw new Error(`workflow run ended ${out.status}: ${String(out.error)}`);
      return out.result!.n;
    },
    check: async (runs) => counter.check(runs, steps),
    close: async () => undefined,
  };
}

// -- LangGraph.js --------------------------------------------------------------------------

interface StateGraphLike {
  addNode(name: string, fn: (state: { n: number }) => { n: number }): StateGraphLike;
  addEdge(from: string, to: string): StateGraphLike;
  compile(): { invoke(input: { n: number }): Promise<{ n: number }> };
}
interface LangGraphModule {
  StateGraph: new (state: unknown) => StateGraphLike;
  Annotation: (() => unknown) & { Root(spec: Record<string, unknown>): unknown };
  START: string;
  END: string;
}

async function langgraph(steps: number): Promise<WorkflowRunner> {
  const { StateGraph, Annotation, START, END } = await importPeer<LangGraphModule>("@langchain/langgraph");
  const counter = new StepCounter();
  // A channel with no reducer keeps the last value written: each node replaces n.
  const graph = new StateGraph(Annotation.Root({ n: Annotation() }));
  const names = Array.from({ length: steps }, (_, i) => `step_${i + 1}`);
  for (const name of names)
    graph.addNode(name, ({ n }) => {
      counter.n++;
      return { n: n + 1 };
    });
  const chain = [START, ...names, END];
  for (let i = 1; i < chain.length; i++) graph.addEdge(chain[i - 1]!, chain[i]!);
  const app = graph.compile();
  return {
    framework: "langgraph",
    package: "@langchain/langgraph",
    version: peerVersion("@langchain/langgraph"),
    run: async () => (await app.invoke({ n: 0 })).n,
    check: async (runs) => counter.check(runs, steps),
    close: async () => undefined,
  };
}

// -- the floor -----------------------------------------------------------------------------

/** The same step functions awaited one after the other, no framework: what the steps cost by themselves. */
function plainLoop(steps: number): WorkflowRunner {
  const counter = new StepCounter();
  const fns = Array.from({ length: steps }, () => async (n: number) => {
    counter.n++;
    return n + 1;
  });
  return {
    framework: "plain-functions",
    package: "none",
    version: process.version,
    run: async () => {
      let n = 0;
      for (const fn of fns) n = await fn(n);
      return n;
    },
    check: async (runs) => counter.check(runs, steps),
    close: async () => undefined,
  };
}

/** One framework's workflow of `steps` function steps. */
export async function loadWorkflow(name: string, steps: number, db?: DbConfig): Promise<WorkflowRunner> {
  switch (name) {
    case "agno-edge":
      return agnoEdge(steps, db);
    case "agno-edge-durable":
      return agnoEdge(steps, db, true);
    case "mastra":
      return mastra(steps);
    case "langgraph":
      return langgraph(steps);
    case "plain-functions":
      return plainLoop(steps);
    default:
      throw new Error(`no workflow framework ${name}`);
  }
}
